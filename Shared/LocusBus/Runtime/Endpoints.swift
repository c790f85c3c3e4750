public import LocusService
public import Foundation

/// Where publishers and subscribers find the bus (docs/protocol.md, "Framing"): flags
/// override `LOCUS_PUB`/`LOCUS_SUB`, which override a config file, which overrides the
/// per-user ipc defaults.
public struct BusEndpoints: Sendable, Equatable {
    /// Publishers connect here (the bus's XSUB side).
    public var pub: String
    /// Subscribers connect here (the bus's XPUB side).
    public var sub: String

    public init(pub: String, sub: String) {
        self.pub = pub
        self.sub = sub
    }

    /// Default TCP ports from docs/protocol.md, for several hosts.
    public static let tcpPubPort = 5560
    public static let tcpSubPort = 5561

    /// The per-user runtime directory: `$XDG_RUNTIME_DIR/locus`, else `/tmp/locus-$UID`.
    public static func runtimeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty { return xdg + "/locus" }
        return "/tmp/locus-\(getuid())"
    }

    /// The ipc defaults for this user, with `LOCUS_PUB`/`LOCUS_SUB` applied.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> BusEndpoints {
        let directory = runtimeDirectory(environment: environment)
        var endpoints = BusEndpoints(pub: "ipc://\(directory)/pub", sub: "ipc://\(directory)/sub")
        if let pub = environment["LOCUS_PUB"], !pub.isEmpty { endpoints.pub = pub }
        if let sub = environment["LOCUS_SUB"], !sub.isEmpty { endpoints.sub = sub }
        return endpoints
    }

    /// Creates the directory of an `ipc://` endpoint with mode 0700 so only this user can reach the socket.
    public static func prepareIPCDirectory(for endpoint: String) throws {
        guard endpoint.hasPrefix("ipc://") else { return }
        let path = String(endpoint.dropFirst("ipc://".count))
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }
}

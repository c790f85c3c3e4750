public import LocusNet

/// Decides what a request gets, without touching a socket: only GET (and HEAD) of the
/// few known paths, and only under a loopback host name when listening on loopback, so a
/// web page elsewhere cannot reach the map through DNS rebinding.
public struct MapRouter: Sendable {
    public enum Decision: Sendable, Equatable {
        /// Send this response and close.
        case respond(HTTPResponse, includeBody: Bool)
        /// Start the event stream.
        case stream
    }

    public let configuration: MapConfiguration
    private let assets: [String: MapAsset]

    public init(configuration: MapConfiguration) {
        self.configuration = configuration
        var assets: [String: MapAsset] = [:]
        for asset in MapAsset.all(configuration: configuration) { assets[asset.path] = asset }
        self.assets = assets
    }

    /// The paths served; everything else is 404.
    public var knownPaths: [String] { assets.keys.sorted() + [MapAsset.eventsPath] }

    public func decide(_ request: HTTPRequestHead) -> Decision {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .respond(.text(405, "only GET is served", extraHeaders: [("Allow", "GET, HEAD")]), includeBody: true)
        }
        guard request.target.utf8.count <= 1024 else { return .respond(.text(414, "request target too long"), includeBody: true) }
        if configuration.listen.isLoopback, !Self.isLoopbackHost(request.headers["host"]) {
            return .respond(.text(421, "this server answers only to a loopback host name"), includeBody: true)
        }
        let path = request.path
        let includeBody = request.method == "GET"
        if path == MapAsset.eventsPath {
            return includeBody ? .stream : .respond(HTTPResponse(status: 200, headers: MapAsset.streamHeaders), includeBody: false)
        }
        guard let asset = assets[path] else { return .respond(.text(404, "not found"), includeBody: includeBody) }
        return .respond(asset.response(configuration: configuration), includeBody: includeBody)
    }

    /// `Host` is required by HTTP/1.1; on loopback it must name the loopback interface.
    static func isLoopbackHost(_ host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            return name[name.index(after: name.startIndex)..<close] == "::1"
        }
        if let colon = name.lastIndex(of: ":") {
            guard UInt16(name[name.index(after: colon)...]) != nil else { return false }
            name = name[..<colon]
        }
        let lower = name.lowercased()
        return lower == "localhost" || lower.hasSuffix(".localhost") || (ListenAddress.octets(lower)?.first == 127)
    }
}

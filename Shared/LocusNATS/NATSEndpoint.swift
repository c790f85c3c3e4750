import Foundation

/// A NATS cluster as Locus is told about it: `nats://host:port[,nats://host:port…]` in
/// `--pub`/`--sub` (or `LOCUS_PUB`/`LOCUS_SUB`), and credentials from a file so they are
/// never on a command line (docs/nats.md, "Connecting").
public struct NATSEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The seed servers; the client learns the rest of the cluster from them.
    public var servers: [String]

    /// Whether a bus endpoint names NATS rather than the ZeroMQ bus.
    public static func isNATS(_ endpoint: String) -> Bool {
        endpoint.hasPrefix("nats://") || endpoint.hasPrefix("tls://")
    }

    /// Parses a comma-separated list of `nats://host:port` (or `tls://`) URLs.
    public init(_ text: String) throws(NATSError) {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty else { throw NATSError("empty NATS endpoint") }
        for part in parts {
            guard Self.isNATS(part), let url = URL(string: part), let host = url.host, !host.isEmpty else {
                throw NATSError("'\(part)' is not a NATS URL (nats://host:port)")
            }
            guard url.user == nil else {
                throw NATSError("'\(part)': give NATS credentials in a file (--nats-credentials), not in the URL")
            }
        }
        servers = parts
    }

    public var description: String { servers.joined(separator: ",") }
}

/// How a client proves who it is to the NATS servers: a user and password (the
/// authorization section `locus nats config` writes) or a NATS credentials file (JWT).
public enum NATSCredentials: Sendable, Equatable {
    case userPassword(user: String, password: String)
    case credentialsFile(path: String)

    /// Reads a credentials file: a `.creds` file (it holds `BEGIN NATS USER JWT`) is passed
    /// to the client as it is; otherwise the first line is `user:password`.
    public static func load(path: String) throws(NATSError) -> NATSCredentials {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw NATSError("cannot read NATS credentials file '\(path)'")
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("BEGIN NATS USER JWT") { return .credentialsFile(path: path) }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw NATSError("NATS credentials file '\(path)' must hold 'user:password' on its first line or a NATS .creds file")
        }
        return .userPassword(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
    }
}

/// A NATS failure with the client's own words in it.
public struct NATSError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

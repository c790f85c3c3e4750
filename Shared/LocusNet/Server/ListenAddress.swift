/// Where a server listens: an IPv4 address and a TCP port. Loopback is the default for every
/// Locus server because what they serve says where devices are; anything wider must be
/// asked for explicitly.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// The map's port (`locus map`).
    public static let defaultPort: UInt16 = 8470
    public static let loopback = ListenAddress(host: "127.0.0.1", port: defaultPort)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, `:PORT` or `PORT` (host 127.0.0.1); `localhost` means 127.0.0.1.
    /// Port 0 asks the system for a free port (tests).
    public init?(parsing text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            let hostPart = text[..<colon]
            if !hostPart.isEmpty { host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart) }
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText), Self.octets(host) != nil else { return nil }
        self.init(host: host, port: port)
    }

    /// The four bytes of a dotted-quad IPv4 address, or nil.
    public static func octets(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part in part.count <= 3 ? UInt8(part) : nil }
        return bytes.count == 4 ? bytes : nil
    }

    /// True for 127.0.0.0/8.
    public var isLoopback: Bool { Self.octets(host)?.first == 127 }

    public var description: String { "\(host):\(port)" }
}

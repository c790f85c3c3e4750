/// An `http://host[:port]/path` URL taken apart for the socket client. HTTPS is not
/// supported: put a local TLS proxy in front of a remote receiver.
public struct HTTPEndpoint: Sendable, Equatable {
    public var host: String
    public var port: UInt16
    public var path: String

    public init(url: String) throws(CatalogError) {
        guard url.hasPrefix("http://") else {
            throw CatalogError("webhook URL '\(url)' must start with http:// (https is not supported)")
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        var hostPart = Substring(authority)
        port = 80
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw CatalogError("bad IPv6 host in '\(url)'") }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = UInt16(after.dropFirst()), value > 0 else { throw CatalogError("bad port in '\(url)'") }
                port = value
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            guard let value = UInt16(hostPart[hostPart.index(after: colon)...]), value > 0 else {
                throw CatalogError("bad port in '\(url)'")
            }
            port = value
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw CatalogError("no host in '\(url)'") }
        host = String(hostPart)
    }
}

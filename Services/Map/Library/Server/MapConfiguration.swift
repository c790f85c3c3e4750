public import LocusNet

/// Everything `locus map` is told at start-up.
public struct MapConfiguration: Sendable, Equatable {
    // MARK: network

    /// Where the HTTP server listens (loopback by default).
    public var listen: ListenAddress = .loopback
    /// The bus endpoint to subscribe to.
    public var subscribeEndpoint: String

    // MARK: page

    /// Whose view the page shows: `reduced` streams only `location.approx.*`.
    public var clientAccuracy: ClientAccuracy = .full
    /// Optional base-map tiles, e.g. `http://127.0.0.1:8080/{z}/{x}/{y}.png`; nil draws a grid only.
    public var tileURLTemplate: String?

    // MARK: limits

    public var limits = ServerLimits()

    public init(subscribeEndpoint: String) {
        self.subscribeEndpoint = subscribeEndpoint
    }

    /// Checks a tile template: http(s), with {z}, {x} and {y}, no quotes or spaces (it ends up in a header and the page).
    public static func validateTileTemplate(_ template: String) -> String? {
        guard template.hasPrefix("http://") || template.hasPrefix("https://") else {
            return "tile URL template must start with http:// or https://"
        }
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            return "tile URL template lacks \(placeholder)"
        }
        if template.contains(where: { $0 == "\"" || $0 == "'" || $0 == "<" || $0 == ">" || $0.isWhitespace || !$0.isASCII || $0 == ";" }) {
            return "tile URL template contains characters that are not allowed"
        }
        return nil
    }

    /// The scheme, host and port of the tile server, for the page's Content-Security-Policy.
    public var tileOrigin: String? {
        guard let template = tileURLTemplate, let schemeEnd = template.range(of: "://") else { return nil }
        let rest = template[schemeEnd.upperBound...]
        let host = rest.prefix(while: { $0 != "/" })
        return String(template[..<schemeEnd.upperBound]) + host
    }
}

import LocusNet

/// One file the page is made of. The bytes are compiled into the binary as string
/// literals, so `locus map` needs no install directory and never fetches from a CDN.
public struct MapAsset: Sendable {
    public var path: String
    public var contentType: String
    public var body: [UInt8]

    public static let eventsPath = "/events"

    /// The page, its script, its style and its configuration.
    public static func all(configuration: MapConfiguration) -> [MapAsset] {
        [
            MapAsset(path: "/", contentType: "text/html; charset=utf-8", body: Array(MapPageHTML.text.utf8)),
            MapAsset(path: "/map.js", contentType: "text/javascript; charset=utf-8", body: Array(MapPageScript.text.utf8)),
            MapAsset(path: "/map.css", contentType: "text/css; charset=utf-8", body: Array(MapPageStyle.text.utf8)),
            MapAsset(path: "/config.json", contentType: "application/json", body: Array(configJSON(configuration).utf8)),
        ]
    }

    /// What the page needs to know about the server: the viewer's accuracy and the tile template.
    static func configJSON(_ configuration: MapConfiguration) -> String {
        var fields = ["\"clientAccuracy\":\"\(configuration.clientAccuracy.rawValue)\""]
        if let template = configuration.tileURLTemplate { fields.append("\"tileURLTemplate\":\"\(template)\"") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Same-origin only, plus images from the tile server when one is configured.
    static func securityHeaders(configuration: MapConfiguration) -> [(String, String)] {
        let images = ["'self'", "data:"] + (configuration.tileOrigin.map { [$0] } ?? [])
        return [
            ("Content-Security-Policy",
             "default-src 'self'; img-src \(images.joined(separator: " ")); connect-src 'self'; frame-ancestors 'none'"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
    }

    static let streamHeaders: [(String, String)] = [
        ("Content-Type", "text/event-stream; charset=utf-8"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    func response(configuration: MapConfiguration) -> HTTPResponse {
        HTTPResponse(status: 200,
                     headers: [("Content-Type", contentType), ("Cache-Control", "no-store")]
                         + Self.securityHeaders(configuration: configuration),
                     body: body)
    }
}

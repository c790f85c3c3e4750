/// How webhooks are sent, from the command line: a CA file to trust instead of the
/// system's, a proxy, and extra headers (a receiver's token).
public struct WebhookOptions: Sendable, Equatable {
    public var caFile: String?
    /// `http://host:port` (or another scheme libcurl knows); nil leaves the usual
    /// `https_proxy`/`http_proxy`/`no_proxy` variables in charge.
    public var proxy: String?
    public var headers: [(String, String)] = []

    public init() {}

    public static func == (a: WebhookOptions, b: WebhookOptions) -> Bool {
        a.caFile == b.caFile && a.proxy == b.proxy && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
    }
}

/// POSTs the notification JSON over HTTP or HTTPS (libcurl) with
/// `Idempotency-Key: <notification id>`, so a receiver that saw a request whose answer was
/// lost drops the repeat. 2xx is delivered; 408, 429, 5xx and transport errors (refused
/// connection, timeout, a certificate that does not verify) are retried with backoff; a
/// redirect is never followed and, like any other status, fails this one notification.
public final class WebhookSink: NotificationSink {
    public let name: String
    public let url: WebhookURL
    private let options: WebhookOptions
    private let timeoutSeconds: Double
    private var post: CurlPost?

    public init(name: String = "webhook", url: String, options: WebhookOptions = WebhookOptions(), timeoutSeconds: Double = 10) throws(CatalogError) {
        self.name = name
        self.url = try WebhookURL(url)
        self.options = options
        self.timeoutSeconds = timeoutSeconds
    }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        let response: CurlPost.Response
        do throws(CurlPost.Failure) {
            let post: CurlPost
            if let existing = self.post {
                post = existing
            } else {
                post = try CurlPost(options: options, timeoutSeconds: timeoutSeconds)
                self.post = post
            }
            response = try post.post(url: url.text, body: Array(record.json()), headers: [
                ("Content-Type", "application/json; charset=utf-8"),
                ("Idempotency-Key", record.id),
            ] + options.headers)
        } catch {
            return .retry("webhook \(url.text): \(error.message)")
        }
        switch response.status {
        case 200..<300: return .delivered
        case 408, 429, 500...599: return .retry("HTTP \(response.status) from \(url.text)")
        case 300..<400:
            return .failed("HTTP \(response.status) from \(url.text): redirect\(response.redirect.map { " to \($0)" } ?? "") refused (give the final URL)")
        default: return .failed("HTTP \(response.status) from \(url.text): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
    }
}

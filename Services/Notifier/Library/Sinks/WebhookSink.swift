/// POSTs the notification JSON with `Idempotency-Key: <notification id>`, so a receiver
/// that saw a request whose answer was lost drops the repeat. 2xx is delivered; 408, 429,
/// 5xx and transport errors are retried with backoff; any other status fails this one.
public final class WebhookSink: NotificationSink {
    public let name: String
    public let endpoint: HTTPEndpoint
    public let client: HTTPClient

    public init(name: String = "webhook", url: String, timeoutSeconds: Double = 10) throws(CatalogError) {
        self.name = name
        endpoint = try HTTPEndpoint(url: url)
        client = HTTPClient(timeoutSeconds: timeoutSeconds)
    }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        let response: HTTPResponse
        do {
            response = try client.post(endpoint, body: Array(record.json()), headers: [
                ("Content-Type", "application/json; charset=utf-8"),
                ("Idempotency-Key", record.id),
            ])
        } catch {
            return .retry(error.message)
        }
        switch response.status {
        case 200..<300: return .delivered
        case 408, 429, 500...599: return .retry("HTTP \(response.status)")
        default: return .failed("HTTP \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
    }
}

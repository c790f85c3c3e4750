import CCurl

/// A webhook address checked by libcurl's own URL parser before anything starts, so a
/// typo exits 64 with the reason instead of failing every delivery: `http://` or
/// `https://` with a host, nothing else.
public struct WebhookURL: Sendable, Equatable {
    public let text: String
    public let isHTTPS: Bool

    public init(_ text: String) throws(CatalogError) {
        guard let handle = curl_url() else { throw CatalogError("webhook URL '\(text)': cannot allocate a URL parser") }
        defer { curl_url_cleanup(handle) }
        let status = curl_url_set(handle, CURLUPART_URL, text, 0)
        guard status == CURLUE_OK else {
            throw CatalogError("webhook URL '\(text)' is not a URL: \(String(cString: curl_url_strerror(status)))")
        }
        let scheme = Self.part(handle, CURLUPART_SCHEME)
        guard scheme == "http" || scheme == "https" else {
            throw CatalogError("webhook URL '\(text)' must start with http:// or https://")
        }
        guard let host = Self.part(handle, CURLUPART_HOST), !host.isEmpty else { throw CatalogError("webhook URL '\(text)' has no host") }
        self.text = text
        isHTTPS = scheme == "https"
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}

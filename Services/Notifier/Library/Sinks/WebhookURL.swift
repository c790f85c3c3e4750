import CCurl

/// A webhook address checked by libcurl's own URL parser before anything starts, so a
/// typo exits 64 with the reason instead of failing every delivery: `http://` or
/// `https://` with a host, nothing else.
public struct WebhookURL: Sendable, Equatable {
    public let text: String
    public let isHTTPS: Bool

    public init(_ text: String) throws(CatalogError) {
        let api: UnsafePointer<locus_curl_api>
        do { api = try Curl.loaded() } catch { throw CatalogError("webhook URL '\(text)': \(error.message)") }
        guard let handle = locus_curl_url(api) else { throw CatalogError("webhook URL '\(text)': cannot allocate a URL parser") }
        defer { locus_curl_url_cleanup(api, handle) }
        let status = locus_curl_url_set(api, handle, CURLUPART_URL, text, 0)
        guard status == CURLUE_OK else {
            throw CatalogError("webhook URL '\(text)' is not a URL: \(String(cString: locus_curl_url_strerror(api, status)))")
        }
        let scheme = Self.part(api, handle, CURLUPART_SCHEME)
        guard scheme == "http" || scheme == "https" else {
            throw CatalogError("webhook URL '\(text)' must start with http:// or https://")
        }
        guard let host = Self.part(api, handle, CURLUPART_HOST), !host.isEmpty else { throw CatalogError("webhook URL '\(text)' has no host") }
        self.text = text
        isHTTPS = scheme == "https"
    }

    private static func part(_ api: UnsafePointer<locus_curl_api>, _ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard locus_curl_url_get(api, handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { locus_curl_free(api, value) }
        return String(cString: value)
    }
}

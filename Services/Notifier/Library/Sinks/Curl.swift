import CCurl

/// libcurl, loaded on first use rather than at start: a notifier without a webhook sink never
/// maps it or the TLS, HTTP/2 and Kerberos libraries it brings (several megabytes resident).
enum Curl {
    /// The loaded functions, or why they could not be loaded. Written once (a lazy global's
    /// initialisation is thread-safe), read-only after.
    nonisolated(unsafe) static let api: Result<UnsafePointer<locus_curl_api>, Failure> = {
        let api = UnsafeMutablePointer<locus_curl_api>.allocate(capacity: 1)
        api.initialize(to: locus_curl_api())
        if let problem = locus_curl_load(api) {
            return .failure(Failure(message: "cannot load libcurl (libcurl.so.4, Debian package libcurl4): \(String(cString: problem))"))
        }
        guard locus_curl_global_init(api, Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else {
            return .failure(Failure(message: "libcurl failed to initialise"))
        }
        return .success(UnsafePointer(api))
    }()

    struct Failure: Error, Sendable {
        var message: String
    }

    /// The loaded functions, or a failure that says what is missing.
    static func loaded() throws(Failure) -> UnsafePointer<locus_curl_api> {
        switch api {
        case .success(let api): return api
        case .failure(let failure): throw failure
        }
    }
}

import CCurl
import Foundation

/// One HTTP(S) POST through libcurl with the settings a webhook needs: TLS verified against
/// the system's CAs or a given CA file, a proxy (or the usual `https_proxy` variables),
/// no redirects followed, http and https only, one deadline over the whole exchange.
/// Blocking; runs on the sink's worker thread, one easy handle per sink.
final class CurlPost {
    struct Response {
        var status: Int
        var body: [UInt8]
        /// The `Location` of a redirect, which is reported and never followed.
        var redirect: String?
    }

    typealias Failure = Curl.Failure

    private let api: UnsafePointer<locus_curl_api>
    private let handle: UnsafeMutableRawPointer
    private let collector = Collector()
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    /// Keeps at most `limit` bytes of a response body (an error page is only quoted).
    final class Collector {
        var bytes: [UInt8] = []
        let limit = 64 * 1024
    }

    init(options: WebhookOptions, timeoutSeconds: Double) throws(Failure) {
        let api = try Curl.loaded()
        guard let handle = locus_curl_easy_init(api) else { throw Failure(message: "libcurl failed to initialise") }
        self.api = api
        self.handle = handle
        let milliseconds = max(1, Int(timeoutSeconds * 1000))
        try set(locus_curl_set_long(api, handle, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try set(locus_curl_set_long(api, handle, CURLOPT_TIMEOUT_MS, milliseconds), "TIMEOUT_MS")
        try set(locus_curl_set_long(api, handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds), "CONNECTTIMEOUT_MS")
        try set(locus_curl_set_long(api, handle, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
        try set(locus_curl_set_string(api, handle, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
        try set(locus_curl_set_long(api, handle, CURLOPT_SSL_VERIFYPEER, 1), "SSL_VERIFYPEER")
        try set(locus_curl_set_long(api, handle, CURLOPT_SSL_VERIFYHOST, 2), "SSL_VERIFYHOST")
        try set(locus_curl_set_string(api, handle, CURLOPT_USERAGENT, "locus-notifier"), "USERAGENT")
        if let caFile = options.caFile { try set(locus_curl_set_string(api, handle, CURLOPT_CAINFO, caFile), "CAINFO \(caFile)") }
        if let proxy = options.proxy { try set(locus_curl_set_string(api, handle, CURLOPT_PROXY, proxy), "PROXY \(proxy)") }
        errorBuffer.withUnsafeMutableBufferPointer { _ = locus_curl_set_pointer(api, handle, CURLOPT_ERRORBUFFER, $0.baseAddress) }
        try set(locus_curl_set_write_function(api, handle) { data, size, count, context in
            guard let data, let context else { return 0 }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            let room = max(0, collector.limit - collector.bytes.count)
            collector.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(length, room)))
            return length
        }, "WRITEFUNCTION")
        try set(locus_curl_set_pointer(api, handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(collector).toOpaque()), "WRITEDATA")
    }

    deinit { locus_curl_cleanup(api, handle) }

    /// Sends `body` to `url` with `headers`; throws for a transport failure (no answer).
    func post(url: String, body: [UInt8], headers: [(String, String)]) throws(Failure) -> Response {
        var list: UnsafeMutablePointer<curl_slist>?
        // "Expect:" stops curl waiting for a 100 Continue that small receivers never send.
        for line in headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] { list = locus_curl_slist_append(api, list, line) }
        defer { locus_curl_slist_free_all(api, list) }
        collector.bytes.removeAll(keepingCapacity: true)
        errorBuffer.withUnsafeMutableBufferPointer { $0[0] = 0 }
        try set(locus_curl_set_string(api, handle, CURLOPT_URL, url), "URL")
        try set(locus_curl_set_pointer(api, handle, CURLOPT_HTTPHEADER, list), "HTTPHEADER")
        try set(locus_curl_set_long(api, handle, CURLOPT_POSTFIELDSIZE, body.count), "POSTFIELDSIZE")
        let result = body.withUnsafeBytes { bytes -> CURLcode in
            _ = locus_curl_set_pointer(api, handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return locus_curl_perform(api, handle)
        }
        _ = locus_curl_set_pointer(api, handle, CURLOPT_POSTFIELDS, nil)
        guard result == CURLE_OK else { throw Failure(message: describe(result)) }
        var status = 0
        _ = locus_curl_get_long(api, handle, CURLINFO_RESPONSE_CODE, &status)
        var location: UnsafeMutablePointer<CChar>?
        _ = locus_curl_get_string(api, handle, CURLINFO_REDIRECT_URL, &location)
        return Response(status: status, body: collector.bytes, redirect: location.map { String(cString: $0) })
    }

    private func set(_ code: CURLcode, _ what: String) throws(Failure) {
        guard code == CURLE_OK else { throw Failure(message: "libcurl option \(what): \(String(cString: locus_curl_strerror(api, code)))") }
    }

    /// libcurl's detailed message (e.g. "SSL certificate problem: unable to get local issuer
    /// certificate"), else its code's text, with the system's reason when a socket call failed.
    private func describe(_ code: CURLcode) -> String {
        let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var text = detail.isEmpty ? String(cString: locus_curl_strerror(api, code)) : detail
        var systemError = 0
        if locus_curl_get_long(api, handle, CURLINFO_OS_ERRNO, &systemError) == CURLE_OK, systemError != 0 {
            text += " (\(String(cString: strerror(Int32(systemError)))))"
        }
        return text
    }
}

/// A whole HTTP/1.x request: its head and the body its `Content-Length` announced.
public struct HTTPRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }
}

/// Reads one request — the head through `HTTPRequestParser`, then a body of exactly
/// `Content-Length` bytes — refusing it as soon as it breaks a bound, so a client can make
/// the server hold at most `maximumHeadBytes + maximumBodyBytes`. Chunked bodies are
/// refused (411): the phones and tools that post here all send a length.
public struct HTTPRequestReader: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// More bytes are needed.
        case incomplete
        case complete(HTTPRequest)
        /// The request is refused with this status and reason (400, 411, 413, 431).
        case refused(status: Int, reason: String)
    }

    public let maximumBodyBytes: Int
    private var parser: HTTPRequestParser
    private var head: HTTPRequestHead?
    private var expected = 0
    private var body: [UInt8] = []

    /// `maximumBodyBytes` 0: bodies are not read and a request is complete at its head.
    public init(maximumHeadBytes: Int = 8192, maximumBodyBytes: Int = 0) {
        parser = HTTPRequestParser(maximumHeadBytes: maximumHeadBytes)
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Adds received bytes and says whether the request is complete or refused.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Outcome {
        if let head {
            body.append(contentsOf: bytes.prefix(expected - body.count))
            return body.count >= expected ? .complete(HTTPRequest(head: head, body: body)) : .incomplete
        }
        switch parser.feed(bytes) {
        case .incomplete: return .incomplete
        case .tooLarge: return .refused(status: 431, reason: "request head larger than \(parser.maximumHeadBytes) bytes")
        case .malformed(let reason): return .refused(status: 400, reason: reason)
        case .complete(let parsed):
            guard maximumBodyBytes > 0 else { return .complete(HTTPRequest(head: parsed)) }
            if let coding = parsed.headers["transfer-encoding"], coding.lowercased() != "identity" {
                return .refused(status: 411, reason: "send the body with a Content-Length, not Transfer-Encoding: \(coding)")
            }
            var length = 0
            if let text = parsed.headers["content-length"] {
                guard let value = Int(text), value >= 0 else { return .refused(status: 400, reason: "bad Content-Length '\(text)'") }
                length = value
            }
            guard length <= maximumBodyBytes else {
                return .refused(status: 413, reason: "request body of \(length) bytes is larger than \(maximumBodyBytes)")
            }
            head = parsed
            expected = length
            // What arrived with the head may already be the whole body.
            return feed(parser.bytesAfterHead)
        }
    }
}

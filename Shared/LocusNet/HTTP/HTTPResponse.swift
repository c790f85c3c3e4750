/// A complete HTTP/1.1 response, serialised once and queued on the connection.
/// Every response closes the connection except the map's event stream, which never ends.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
    }

    /// A short plain-text answer (errors).
    public static func text(_ status: Int, _ message: String, extraHeaders: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + extraHeaders,
                     body: Array((message + "\n").utf8))
    }

    public static func reason(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 421: return "Misdirected Request"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }

    /// The bytes on the wire. `includeBody` is false for HEAD; `streaming` leaves the length
    /// open and the connection alive (Server-Sent Events).
    public func serialized(includeBody: Bool = true, streaming: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if streaming {
            head += "Connection: keep-alive\r\n"
        } else {
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }
}

import Foundation

/// The status and body of an HTTP response.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
}

/// A transport failure: no connection, a timeout, or a response that is not HTTP.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A minimal blocking HTTP/1.1 client: one POST per connection (`Connection: close`),
/// a deadline over the whole exchange, Content-Length or read-to-close bodies. Enough
/// for webhooks without pulling libcurl in through FoundationNetworking.
public struct HTTPClient: Sendable {
    public var timeoutSeconds: Double

    public init(timeoutSeconds: Double = 10) {
        self.timeoutSeconds = timeoutSeconds
    }

    public func post(_ endpoint: HTTPEndpoint, body: [UInt8], headers: [(String, String)]) throws(HTTPError) -> HTTPResponse {
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        let fd = try connect(endpoint, deadline: deadline)
        defer { close(fd) }
        var head = "POST \(endpoint.path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: locus-notifier\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try send(fd, Array(head.utf8) + body, deadline: deadline)
        return try HTTPResponseParser.parse(receive(fd, deadline: deadline))
    }

    private func connect(_ endpoint: HTTPEndpoint, deadline: Double) throws(HTTPError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPError(message: "cannot resolve \(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            if errno == EINPROGRESS, wait(fd, events: Int16(POLLOUT), deadline: deadline) {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return fd }
                lastError = String(cString: strerror(error))
            } else {
                lastError = errno == EINPROGRESS ? "connect timed out" : String(cString: strerror(errno))
            }
            close(fd)
        }
        throw HTTPError(message: "cannot connect to \(endpoint.host):\(endpoint.port): \(lastError)")
    }

    private func send(_ fd: Int32, _ bytes: [UInt8], deadline: Double) throws(HTTPError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 { offset += written; continue }
            guard written < 0 && (errno == EAGAIN || errno == EINTR) else {
                throw HTTPError(message: "send failed: \(String(cString: strerror(errno)))")
            }
            guard wait(fd, events: Int16(POLLOUT), deadline: deadline) else { throw HTTPError(message: "send timed out") }
        }
    }

    /// Reads until the response is complete (headers plus Content-Length) or the peer closes.
    private func receive(_ fd: Int32, deadline: Double) throws(HTTPError) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            if HTTPResponseParser.isComplete(data) { return data }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { data.append(contentsOf: buffer[0..<count]); continue }
            if count == 0 { return data }
            guard errno == EAGAIN || errno == EINTR else {
                throw HTTPError(message: "receive failed: \(String(cString: strerror(errno)))")
            }
            guard wait(fd, events: Int16(POLLIN), deadline: deadline) else { throw HTTPError(message: "no response in time") }
        }
    }

    private func wait(_ fd: Int32, events: Int16, deadline: Double) -> Bool {
        while true {
            let remaining = Int32(max(0, (deadline - Date().timeIntervalSince1970) * 1000))
            guard remaining > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, remaining)
            if ready > 0 { return true }
            if ready < 0 && errno == EINTR { continue }
            return false
        }
    }
}

/// Parses the status line, headers and body of an HTTP/1.1 response.
enum HTTPResponseParser {
    static func headerEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4) where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    static func contentLength(_ head: String) -> Int? {
        for line in head.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }

    static func isComplete(_ data: [UInt8]) -> Bool {
        guard let end = headerEnd(data), let length = contentLength(String(decoding: data[0..<end], as: UTF8.self)) else {
            return false
        }
        return data.count - end >= length
    }

    static func parse(_ data: [UInt8]) throws(HTTPError) -> HTTPResponse {
        guard let end = headerEnd(data) else { throw HTTPError(message: "incomplete HTTP response (\(data.count) bytes)") }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        let statusLine = head.prefix { $0 != "\r" }.split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw HTTPError(message: "not an HTTP response: \(head.prefix(40))")
        }
        var body = Array(data[end...])
        if let length = contentLength(head), body.count > length { body = Array(body.prefix(length)) }
        return HTTPResponse(status: status, body: body)
    }
}

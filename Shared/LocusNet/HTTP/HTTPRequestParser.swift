/// Collects the bytes of one request head, refusing it as soon as it is too large or
/// malformed, so a client can never make the server buffer more than `maximumHeadBytes`.
public struct HTTPRequestParser: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// More bytes are needed.
        case incomplete
        case complete(HTTPRequestHead)
        /// The head exceeded the limit (answered with 431).
        case tooLarge
        /// Not an HTTP/1.x request head (answered with 400).
        case malformed(String)
    }

    public let maximumHeadBytes: Int
    private var buffer: [UInt8] = []
    private var scanFrom = 0
    /// Bytes received after the blank line that ended the head (the start of a body), once complete.
    public private(set) var bytesAfterHead: [UInt8] = []

    public init(maximumHeadBytes: Int = 8192) {
        self.maximumHeadBytes = maximumHeadBytes
    }

    /// Adds received bytes and reports whether the head is now complete.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Outcome {
        buffer.append(contentsOf: bytes)
        guard let end = headEnd() else {
            return buffer.count > maximumHeadBytes ? .tooLarge : .incomplete
        }
        if end > maximumHeadBytes { return .tooLarge }
        bytesAfterHead = Array(buffer[end...])
        return Self.parse(Array(buffer[..<end]))
    }

    /// Index just past the blank line ending the head (CRLF CRLF, or bare LF LF as RFC 9112 tolerates).
    private mutating func headEnd() -> Int? {
        var index = max(scanFrom, 0)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index >= 1, buffer[index - 1] == 0x0A { return index + 1 }
                if index >= 3, buffer[index - 1] == 0x0D, buffer[index - 2] == 0x0A { return index + 1 }
            }
            index += 1
        }
        scanFrom = max(0, buffer.count - 3)
        return nil
    }

    static func parse(_ head: [UInt8]) -> Outcome {
        guard !head.contains(0) else { return .malformed("NUL byte in request head") }
        // Lines are split on bytes: as Characters, CR LF is one grapheme and would not split on LF.
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> Substring in
            let bytes = line.last == 0x0D ? line.dropLast() : line
            return Substring(String(decoding: bytes, as: UTF8.self))
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { return .malformed("empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .malformed("request line needs method, target and version") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard !method.isEmpty, method.allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "-") }) else {
            return .malformed("bad method")
        }
        guard target.hasPrefix("/"), target.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            return .malformed("bad request target")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .malformed("unsupported version \(version)") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("header line without a colon") }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                return .malformed("bad header name")  // obsolete line folding is refused too (RFC 9112 §5.2)
            }
            let value = line[line.index(after: colon)...].trimmingSpaces()
            headers[name.lowercased()] = value
        }
        return .complete(HTTPRequestHead(method: method, target: target, version: version, headers: headers))
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

/// A byte-level JSON reader over a borrowed buffer (RFC 8259). It reads one token at a
/// time so the codec can decode straight into typed structs, without an intermediate
/// tree on the hot path. Every syntax problem becomes `ProtocolError.invalidJSON`;
/// `NaN`, `Infinity` and numbers that overflow a Double become `.notFinite`.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    /// Nesting depth of the value being read; bounded so hostile input cannot exhaust the stack.
    var depth = 0
    static let maximumDepth = 64

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The byte at the cursor, or 0 at the end (NUL never starts a JSON token).
    @inline(__always)
    func peek() -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == .space || byte == .newline || byte == .carriageReturn || byte == .tab else { return }
            index += 1
        }
    }

    func syntaxError(_ what: String) -> ProtocolError {
        ProtocolError(code: .invalidJSON, message: "invalid JSON at byte \(index): \(what)")
    }

    /// Consumes `byte` after optional whitespace, or fails naming what was expected.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ what: String) throws(ProtocolError) {
        skipWhitespace()
        guard peek() == byte else { throw syntaxError("expected \(what)\(foundDescription)") }
        index += 1
    }

    var foundDescription: String {
        if isAtEnd { return ", found the end of the input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return ", found '\(Character(Unicode.Scalar(byte)))'" }
        return ", found byte 0x\(String(byte, radix: 16))"
    }

    // MARK: - Objects

    /// Consumes `{` and reports whether the object is empty (then `}` is consumed too).
    mutating func beginObject() throws(ProtocolError) -> Bool {
        try expect(.openBrace, "'{'")
        skipWhitespace()
        if peek() == .closeBrace {
            index += 1
            return true
        }
        return false
    }

    /// Reads a member name and its colon; the cursor is left before the value.
    mutating func readKey() throws(ProtocolError) -> String {
        skipWhitespace()
        guard peek() == .quote else { throw syntaxError("expected a member name in quotes\(foundDescription)") }
        let key = try readString()
        try expect(.colon, "':' after a member name")
        return key
    }

    /// Reads a member name without building a String: its byte range, cursor left before
    /// the value. Nil when the name has escapes (the caller then takes the general path).
    mutating func readRawKey() throws(ProtocolError) -> Range<Int>? {
        skipWhitespace()
        guard peek() == .quote else { throw syntaxError("expected a member name in quotes\(foundDescription)") }
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                let range = start..<index
                index += 1
                try expect(.colon, "':' after a member name")
                return range
            }
            if byte == .backslash || byte < 0x20 || byte >= 0x80 { return nil }
            index += 1
        }
        throw syntaxError("unterminated string")
    }

    /// Reads a string token without building a String: the byte range between its quotes.
    /// Nil when it has escapes or bytes outside printable ASCII (the caller then takes the general path).
    mutating func readRawString() throws(ProtocolError) -> Range<Int>? {
        skipWhitespace()
        guard peek() == .quote else { throw syntaxError("expected a string\(foundDescription)") }
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                index += 1
                return start..<(index - 1)
            }
            if byte == .backslash || byte < 0x20 || byte >= 0x80 { return nil }
            index += 1
        }
        throw syntaxError("unterminated string")
    }

    /// Whether the bytes in `range` spell `literal`.
    @inline(__always)
    func bytes(in range: Range<Int>, equal literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        var offset = 0
        for position in range {
            if bytes[position] != pointer[offset] { return false }
            offset += 1
        }
        return true
    }

    /// After a member value: consumes `,` (returns true, another member follows) or `}` (returns false).
    mutating func nextMember() throws(ProtocolError) -> Bool {
        skipWhitespace()
        switch peek() {
        case .comma:
            index += 1
            return true
        case .closeBrace:
            index += 1
            return false
        default:
            throw syntaxError("expected ',' or '}' in an object\(foundDescription)")
        }
    }

    // MARK: - Literals

    /// Reads `true` or `false`.
    mutating func readBool() throws(ProtocolError) -> Bool {
        skipWhitespace()
        if matchLiteral("true") { return true }
        if matchLiteral("false") { return false }
        throw syntaxError("expected true or false\(foundDescription)")
    }

    /// Consumes `literal` when the input continues with it.
    mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard index + length <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<length where bytes[index + offset] != pointer[offset] {
            return false
        }
        index += length
        return true
    }

    /// Rejects the non-JSON spellings some encoders emit for non-finite numbers, with a clear message.
    mutating func rejectNonFiniteLiteral() throws(ProtocolError) {
        let start = index
        let spellings: [StaticString] = ["NaN", "Infinity", "-Infinity", "nan", "inf", "-inf"]
        for spelling in spellings {
            guard matchLiteral(spelling) else { continue }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index = start
            throw ProtocolError(code: .notFinite, message: "\(text) is not a JSON number: NaN and infinities are never sent")
        }
    }
}

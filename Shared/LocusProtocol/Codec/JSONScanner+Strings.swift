/// String tokens: the quick path for text with no escapes, and every JSON escape
/// (including `\uXXXX` surrogate pairs) on the general path.
extension JSONScanner {
    /// Reads a string token with every JSON escape, including `\uXXXX` surrogate pairs.
    mutating func readString() throws(ProtocolError) -> String {
        skipWhitespace()
        guard peek() == .quote else { throw syntaxError("expected a string\(foundDescription)") }
        index += 1
        let start = index
        var asciiOnly = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if asciiOnly { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw ProtocolError(code: .invalidJSON, message: "invalid JSON: a string is not valid UTF-8")
                }
                return text
            }
            if byte == .backslash { return try readEscapedString(from: start) }
            if byte < 0x20 { throw syntaxError("control character 0x\(String(byte, radix: 16)) inside a string must be escaped") }
            if byte >= 0x80 { asciiOnly = false }
            index += 1
        }
        throw syntaxError("unterminated string")
    }

    private mutating func readEscapedString(from start: Int) throws(ProtocolError) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(index - start + 16)
        utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw ProtocolError(code: .invalidJSON, message: "invalid JSON: a string is not valid UTF-8")
                }
                return text
            }
            if byte < 0x20 { throw syntaxError("control character 0x\(String(byte, radix: 16)) inside a string must be escaped") }
            if byte != .backslash {
                utf8.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case .quote: utf8.append(.quote)
            case .backslash: utf8.append(.backslash)
            case .slash: utf8.append(.slash)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(.newline)
            case UInt8(ascii: "r"): utf8.append(.carriageReturn)
            case UInt8(ascii: "t"): utf8.append(.tab)
            case UInt8(ascii: "u"):
                let scalar = try readUnicodeEscape()
                utf8.append(contentsOf: UTF8.encode(scalar)!)
            default:
                index -= 1
                throw syntaxError("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
            }
        }
        throw syntaxError("unterminated string")
    }

    /// Reads the hex digits after `\u` (and a following `\uDCxx` for a surrogate pair).
    private mutating func readUnicodeEscape() throws(ProtocolError) -> Unicode.Scalar {
        let first = try readHex4()
        if (0xDC00...0xDFFF).contains(first) { throw syntaxError("lone low surrogate \\u\(String(first, radix: 16))") }
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == .backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                throw syntaxError("high surrogate \\u\(String(first, radix: 16)) not followed by a low surrogate")
            }
            index += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw syntaxError("high surrogate \\u\(String(first, radix: 16)) not followed by a low surrogate")
            }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(value)!
        }
        return Unicode.Scalar(first)!
    }

    private mutating func readHex4() throws(ProtocolError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw syntaxError("truncated \\u escape") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntaxError("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}

/// Small text helpers shared by the scan-output parsers: hex digits, escapes, line splitting.
public enum ScanText {
    /// The value of one ASCII hex digit, nil for other bytes.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The lines of a tool's output, without line ends (LF or CRLF).
    public static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? line.dropLast() : line
        }
    }

    /// `text` without leading and trailing spaces and tabs.
    public static func trimmed(_ text: Substring) -> Substring {
        var view = text
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return view
    }

    /// Decodes iw's SSID escapes (`\xNN` for every byte that is not printable ASCII, and for
    /// spaces at either end) back to bytes, then to text; invalid UTF-8 becomes U+FFFD.
    public static func unescapeHexBytes(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "\\"), index + 3 < source.count, source[index + 1] == UInt8(ascii: "x"),
               let high = hexValue(source[index + 2]), let low = hexValue(source[index + 3]) {
                bytes.append(high << 4 | low)
                index += 4
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A whole number in hexadecimal (mmcli prints LAC, TAC and cell id so), nil when not one.
    public static func hexNumber(_ text: Substring) -> UInt64? {
        let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : text
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        return UInt64(digits, radix: 16)
    }

    /// At most `limit` characters of `text`, for error messages that quote input.
    public static func quote(_ text: Substring, limit: Int = 60) -> String {
        let printable = text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return printable.count > limit ? String(printable.prefix(limit)) + "…" : printable
    }
}

/// Reads `application/x-www-form-urlencoded` text — a URL's query or a form body — into
/// name/value pairs in order: `+` is a space and `%XX` a byte, and the decoded bytes must be
/// UTF-8. A broken escape or invalid UTF-8 is an error naming the field, never a guess.
public enum QueryString {
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The pairs of `text`; a name without `=` has the value "". Empty pieces (`a=1&&b=2`) are skipped.
    public static func parse(_ text: some StringProtocol) throws(DecodingError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: "=")
            let rawName = equals.map { piece[..<$0] } ?? piece[...]
            let rawValue = equals.map { piece[piece.index(after: $0)...] } ?? ""
            let name = try decode(rawName, what: "a field name")
            pairs.append((name, try decode(rawValue, what: "field '\(name)'")))
        }
        return pairs
    }

    /// Percent-decodes one component (`+` is a space).
    public static func decode(_ component: some StringProtocol, what: String = "a value") throws(DecodingError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.utf8.count)
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw DecodingError(message: "\(what) has a '%' not followed by two hex digits")
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DecodingError(message: "\(what) is not UTF-8 once decoded")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

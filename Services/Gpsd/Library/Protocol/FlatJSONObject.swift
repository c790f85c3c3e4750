/// The argument of a gpsd command (`?WATCH={"enable":true,"json":true}`): one JSON object
/// whose members are strings, numbers, booleans or null, read from the bytes of a request
/// line. gpsd's own parser takes only such flat objects; a nested value is refused.
public struct FlatJSONObject: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    public enum Outcome: Sendable, Equatable {
        /// The object and the index just past its closing brace.
        case parsed(FlatJSONObject, end: Int)
        /// The bytes stop before the object does: wait for more.
        case incomplete
        case invalid(String)
    }

    public private(set) var members: [String: Value] = [:]

    public init(members: [String: Value] = [:]) {
        self.members = members
    }

    public subscript(key: String) -> Value? { members[key] }

    /// Parses the object starting at `start` (which must be `{`, after optional spaces).
    public static func parse(_ bytes: [UInt8], from start: Int) -> Outcome {
        var reader = Reader(bytes: bytes, index: start)
        do throws(Reader.Failure) {
            let object = try reader.readObject()
            return .parsed(object, end: reader.index)
        } catch {
            switch error {
            case .incomplete: return .incomplete
            case .invalid(let message): return .invalid(message)
            }
        }
    }

    private struct Reader {
        enum Failure: Error { case incomplete, invalid(String) }
        let bytes: [UInt8]
        var index: Int

        mutating func peek() throws(Failure) -> UInt8 {
            skipSpaces()
            guard index < bytes.count else { throw .incomplete }
            // A line end inside the object means it will never be completed.
            if bytes[index] == UInt8(ascii: "\n") { throw .invalid("the object is not closed before the end of the line") }
            return bytes[index]
        }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") || bytes[index] == UInt8(ascii: "\r") {
                index += 1
            }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
            guard try peek() == byte else { throw .invalid("expected \(what) at offset \(index)") }
            index += 1
        }

        mutating func readObject() throws(Failure) -> FlatJSONObject {
            try expect(UInt8(ascii: "{"), "'{'")
            var object = FlatJSONObject()
            if try peek() == UInt8(ascii: "}") {
                index += 1
                return object
            }
            while true {
                guard try peek() == UInt8(ascii: "\"") else { throw .invalid("expected a quoted attribute name at offset \(index)") }
                let key = try readString()
                try expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
                object.members[key] = try readValue(key)
                let next = try peek()
                index += 1
                if next == UInt8(ascii: "}") { return object }
                guard next == UInt8(ascii: ",") else { throw .invalid("expected ',' or '}' after \"\(key)\"") }
            }
        }

        mutating func readValue(_ key: String) throws(Failure) -> Value {
            let first = try peek()
            switch first {
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber(key))
            case UInt8(ascii: "{"), UInt8(ascii: "["): throw .invalid("\"\(key)\" has a nested value; gpsd commands take flat objects")
            default: throw .invalid("\"\(key)\" has no valid value")
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                guard index < bytes.count else { throw .incomplete }
                guard bytes[index] == expected else { throw .invalid("unexpected value at offset \(index)") }
                index += 1
            }
        }

        mutating func readNumber(_ key: String) throws(Failure) -> Double {
            let start = index
            while index < bytes.count, "+-.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
            guard index < bytes.count else { throw .incomplete }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
                throw .invalid("\"\(key)\" is not a number")
            }
            return value
        }

        mutating func readString() throws(Failure) -> String {
            index += 1  // the opening quote
            var raw: [UInt8] = []
            while true {
                guard index < bytes.count else { throw .incomplete }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: raw, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw .incomplete }
                    let escape = bytes[index]
                    index += 1
                    let decoded: UInt8? = switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escape
                    case UInt8(ascii: "n"): 0x0A
                    case UInt8(ascii: "r"): 0x0D
                    case UInt8(ascii: "t"): 0x09
                    case UInt8(ascii: "b"): 0x08
                    case UInt8(ascii: "f"): 0x0C
                    default: nil
                    }
                    guard let decoded else { throw .invalid("unsupported escape '\\\(Character(Unicode.Scalar(escape)))' in a string") }
                    raw.append(decoded)
                case 0x00..<0x20:
                    throw .invalid("control character in a string")
                default:
                    raw.append(byte)
                }
            }
        }
    }
}

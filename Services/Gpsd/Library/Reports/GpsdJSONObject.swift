/// One gpsd JSON object built field by field, in the order given.
///
/// libgps finds an object's type by the first `"class":` in the line and compares the
/// bytes after it (`"class":"TPV"`), so `class` is always the first member and nothing
/// is spaced. Absent values are left out, never written as `null` (gpsd_json(5):
/// "Responses never contain the special JSON value null").
public struct GpsdJSONObject: Sendable {
    public private(set) var text: String

    public init(class name: String) {
        text = "{\"class\":\"\(name)\""
    }

    public mutating func add(_ key: String, string value: String?) {
        guard let value else { return }
        text += ",\"\(key)\":\"" + Self.escaped(value) + "\""
    }

    public mutating func add(_ key: String, _ value: Double?, decimals: Int) {
        guard let value, value.isFinite else { return }
        text += ",\"\(key)\":" + FixedDecimal.text(value, decimals: decimals)
    }

    public mutating func add(_ key: String, integer value: Int?) {
        guard let value else { return }
        text += ",\"\(key)\":\(value)"
    }

    public mutating func add(_ key: String, bool value: Bool) {
        text += ",\"\(key)\":" + (value ? "true" : "false")
    }

    /// A member whose value is already JSON (an array of objects).
    public mutating func add(_ key: String, json value: String) {
        text += ",\"\(key)\":" + value
    }

    /// The finished object without a line end.
    public var object: String { text + "}" }

    /// The finished object as gpsd sends it: one line ending in CR LF.
    public var line: String { text + "}\r\n" }

    /// JSON string escaping for arbitrary text (an ERROR message quoting a request).
    public static func escaped(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let digits = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

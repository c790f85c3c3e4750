/// Any JSON value. Used for message types this version does not know (kept, not
/// rejected, so a reader tolerates newer writers) and for the generic decode path.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The members when this is an object, otherwise nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// A short word for the JSON kind, for error messages ("a string", "null").
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A compact rendering of the value for error messages, cut to a readable length.
    var shortDescription: String {
        let text: String
        switch self {
        case .null: text = "null"
        case .bool(let flag): text = flag ? "true" : "false"
        case .number(let number): text = JSONWriter.numberText(number)
        case .string(let string): text = "\"\(string)\""
        case .array: text = "[…]"
        case .object: text = "{…}"
        }
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}

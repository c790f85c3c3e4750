/// Typed access to the members of a decoded JSON object, with errors that name the
/// message type and the field path. A member that is `null` counts as absent for an
/// optional field (tolerant of writers that send null for unknown) and as the wrong
/// type for a required one.
struct FieldReader {
    let members: [String: JSONValue]
    /// Path of this object inside the body, ending in "." (empty at the top).
    let path: String
    let check: Checker

    func nested(_ members: [String: JSONValue], at name: String) -> FieldReader {
        FieldReader(members: members, path: path + name + ".", check: check)
    }

    // MARK: - Presence

    func required(_ name: String) throws(ProtocolError) -> JSONValue {
        guard let value = members[name] else {
            throw check.failure(.missingField, path + name, "required field is missing")
        }
        return value
    }

    func optional(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    func wrongType(_ name: String, expected: String, got value: JSONValue) -> ProtocolError {
        check.failure(.wrongType, path + name, "expected \(expected), got \(value.kindDescription) \(value.shortDescription)")
    }

    // MARK: - Scalars

    func string(_ name: String) throws(ProtocolError) -> String {
        try asString(try required(name), name)
    }

    func optionalString(_ name: String) throws(ProtocolError) -> String? {
        guard let value = optional(name) else { return nil }
        return try asString(value, name)
    }

    func asString(_ value: JSONValue, _ name: String) throws(ProtocolError) -> String {
        guard case .string(let text) = value else { throw wrongType(name, expected: "a string", got: value) }
        return text
    }

    func double(_ name: String) throws(ProtocolError) -> Double {
        try asDouble(try required(name), name)
    }

    func optionalDouble(_ name: String) throws(ProtocolError) -> Double? {
        guard let value = optional(name) else { return nil }
        return try asDouble(value, name)
    }

    func asDouble(_ value: JSONValue, _ name: String) throws(ProtocolError) -> Double {
        guard case .number(let number) = value else { throw wrongType(name, expected: "a number", got: value) }
        return number
    }

    func int(_ name: String) throws(ProtocolError) -> Int {
        try asInt(try required(name), name)
    }

    func optionalInt(_ name: String) throws(ProtocolError) -> Int? {
        guard let value = optional(name) else { return nil }
        return try asInt(value, name)
    }

    func asInt(_ value: JSONValue, _ name: String) throws(ProtocolError) -> Int {
        guard case .number(let number) = value, let integer = exactInteger(number) else {
            throw wrongType(name, expected: "an integer", got: value)
        }
        return integer
    }

    func optionalBool(_ name: String) throws(ProtocolError) -> Bool? {
        guard let value = optional(name) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(name, expected: "true or false", got: value) }
        return flag
    }

    /// A word from a closed set; an unknown word is `.invalidValue` listing the known ones.
    func word<Word: RawRepresentable<String> & CaseIterable>(_ name: String, as: Word.Type = Word.self) throws(ProtocolError) -> Word {
        try asWord(try required(name), name)
    }

    func optionalWord<Word: RawRepresentable<String> & CaseIterable>(_ name: String, as: Word.Type = Word.self) throws(ProtocolError) -> Word? {
        guard let value = optional(name) else { return nil }
        return try asWord(value, name)
    }

    private func asWord<Word: RawRepresentable<String> & CaseIterable>(_ value: JSONValue, _ name: String) throws(ProtocolError) -> Word {
        let text = try asString(value, name)
        guard let word = Word(rawValue: text) else {
            let known = Word.allCases.map(\.rawValue).joined(separator: ", ")
            throw check.failure(.invalidValue, path + name, "\(check.quoted(text)) is not one of \(known)")
        }
        return word
    }

    // MARK: - Containers

    func object(_ name: String) throws(ProtocolError) -> FieldReader {
        try asObject(try required(name), name)
    }

    func optionalObject(_ name: String) throws(ProtocolError) -> FieldReader? {
        guard let value = optional(name) else { return nil }
        return try asObject(value, name)
    }

    func asObject(_ value: JSONValue, _ name: String) throws(ProtocolError) -> FieldReader {
        guard case .object(let members) = value else { throw wrongType(name, expected: "an object", got: value) }
        return nested(members, at: name)
    }

    func array(_ name: String) throws(ProtocolError) -> [JSONValue] {
        try asArray(try required(name), name)
    }

    func optionalArray(_ name: String) throws(ProtocolError) -> [JSONValue]? {
        guard let value = optional(name) else { return nil }
        return try asArray(value, name)
    }

    func asArray(_ value: JSONValue, _ name: String) throws(ProtocolError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw wrongType(name, expected: "an array", got: value) }
        return elements
    }
}

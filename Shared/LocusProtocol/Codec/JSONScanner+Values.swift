/// Whole-value reading: into a `JSONValue` tree (for the generic decode path and unknown
/// types) or skipped without building anything (for unknown fields on the fast path).
extension JSONScanner {
    /// Reads any JSON value into a tree. Duplicate member names: the last one wins.
    mutating func readValue() throws(ProtocolError) -> JSONValue {
        skipWhitespace()
        switch peek() {
        case .openBrace:
            return .object(try readObjectMembers())
        case .openBracket:
            try enterNesting()
            defer { depth -= 1 }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if peek() == .closeBracket {
                index += 1
                return .array(elements)
            }
            repeat {
                elements.append(try readValue())
            } while try nextElement()
            return .array(elements)
        case .quote:
            return .string(try readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try readBool())
        case UInt8(ascii: "n"):
            if matchLiteral("null") { return .null }
            try rejectNonFiniteLiteral()
            throw syntaxError("unexpected 'n'")
        case .minus, .zero ... .nine:
            return .number(try readNumber())
        default:
            try rejectNonFiniteLiteral()
            throw syntaxError("expected a value\(foundDescription)")
        }
    }

    /// Reads an object's members (cursor at `{`).
    mutating func readObjectMembers() throws(ProtocolError) -> [String: JSONValue] {
        try enterNesting()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        if try beginObject() { return members }
        repeat {
            let key = try readKey()
            do {
                members[key] = try readValue()
            } catch where error.code == .notFinite {
                // Name the member holding the number, innermost last ("location.lat").
                throw ProtocolError(code: .notFinite, field: error.field.map { key + "." + $0 } ?? key, message: error.message)
            }
        } while try nextMember()
        return members
    }

    /// After an array element: consumes `,` (true, another follows) or `]` (false).
    mutating func nextElement() throws(ProtocolError) -> Bool {
        skipWhitespace()
        switch peek() {
        case .comma:
            index += 1
            return true
        case .closeBracket:
            index += 1
            return false
        default:
            throw syntaxError("expected ',' or ']' in an array\(foundDescription)")
        }
    }

    /// Skips one value, checking its syntax as strictly as `readValue` does.
    mutating func skipValue() throws(ProtocolError) {
        skipWhitespace()
        switch peek() {
        case .openBrace:
            try enterNesting()
            defer { depth -= 1 }
            if try beginObject() { return }
            repeat {
                _ = try readKey()
                try skipValue()
            } while try nextMember()
        case .openBracket:
            try enterNesting()
            defer { depth -= 1 }
            index += 1
            skipWhitespace()
            if peek() == .closeBracket {
                index += 1
                return
            }
            repeat {
                try skipValue()
            } while try nextElement()
        case .quote:
            _ = try readString()
        case .minus, .zero ... .nine:
            _ = try readNumber()
        default:
            _ = try readValue()
        }
    }

    private mutating func enterNesting() throws(ProtocolError) {
        depth += 1
        if depth > JSONScanner.maximumDepth {
            throw syntaxError("values nested deeper than \(JSONScanner.maximumDepth) levels")
        }
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws(ProtocolError) {
        skipWhitespace()
        guard isAtEnd else { throw syntaxError("unexpected data after the JSON value") }
    }
}

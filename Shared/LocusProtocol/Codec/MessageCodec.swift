/// The one codec for v1 bodies: compact JSON out, typed and validated messages in.
///
/// Decoding rules: the body must be one JSON object of at most 1 MiB; the envelope is
/// checked first (`v` must be 1), then the fields of the type, then ranges, ids and
/// words (`Message.validate()`). Unknown fields are ignored, unknown types become
/// `.other`. For duplicate member names the last one wins, as in most JSON readers.
/// `region.list` is a request without a `regions` field and a reply with one.
public enum MessageCodec {
    /// Largest body accepted, in bytes.
    public static let maximumBodyBytes = 1 << 20

    /// Compact JSON, no trailing newline. Nil optionals are absent. Encoding does not
    /// validate: call `message.validate()` first when the fields come from outside.
    public static func encode(_ message: Message) -> [UInt8] {
        MessageEncoder.encode(message)
    }

    /// The same bytes as `encode(_:)`, appended to `output` (a buffer kept across messages).
    public static func encode(_ message: Message, appendingTo output: inout [UInt8]) {
        MessageEncoder.encode(message, appendingTo: &output)
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) -> Message {
        guard bytes.count <= maximumBodyBytes else {
            throw ProtocolError(code: .tooLarge, message: "body of \(bytes.count) bytes exceeds the limit of \(maximumBodyBytes) bytes")
        }
        if let (envelope, location) = LocationFastPath.parse(bytes) {
            // What `Message.validate()` checks for a location, on the parts before they are
            // wrapped: the same errors, without copying the fix out of the message again.
            try envelope.validate()
            try location.validate(Checker(type: MessageType.location))
            return Message(envelope: envelope, body: .location(location))
        }
        let members = try readObject(bytes)
        let envelope = try BodyDecoder.decodeEnvelope(members)
        let body = try BodyDecoder.decodeBody(type: envelope.type, members: members)
        let message = Message(envelope: envelope, body: body)
        try message.validate()
        return message
    }

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> Message {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ProtocolError) in try decode(raw) } }
        return try result.get()
    }

    public static func decode(_ text: String) throws(ProtocolError) -> Message {
        var text = text
        let result = text.withUTF8 { utf8 in Result { () throws(ProtocolError) in try decode(UnsafeRawBufferPointer(utf8)) } }
        return try result.get()
    }

    /// Parses the whole body as one JSON object, telling "not JSON" from "JSON but not an object".
    private static func readObject(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) -> [String: JSONValue] {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        if scanner.isAtEnd { throw ProtocolError(code: .invalidJSON, message: "invalid JSON: the body is empty") }
        if scanner.peek() != .openBrace {
            let value = try scanner.readValue()
            try scanner.expectEnd()
            throw ProtocolError(code: .notAnObject, message: "the body must be a JSON object, got \(value.kindDescription)")
        }
        do {
            let members = try scanner.readObjectMembers()
            try scanner.expectEnd()
            return members
        } catch where error.code == .notFinite && error.field != nil {
            throw ProtocolError(code: .notFinite, field: error.field, message: "\(error.field!): \(error.message)")
        }
    }
}

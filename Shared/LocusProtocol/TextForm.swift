/// The text form (docs/protocol.md "Text form"): one message per line, the topic, one space,
/// the JSON body. `locus tail` prints it and every `--stdio` mode reads and writes it, so
/// services compose in a shell pipeline.
///
/// Lines are read as bytes where they lie: the topic is the only String built, and a
/// message is decoded in one pass over its body (`decode(_:)`), the syntax being checked
/// again only to word the error when decoding fails.
public enum TextForm {
    /// `topic + " " + body`, without a trailing newline.
    public static func line(topic: String, body: [UInt8]) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(topic.utf8.count + 1 + body.count)
        append(topic: topic, body: body, to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Appends `topic + " " + body` (no newline) to `output`, with no String in between.
    public static func append(topic: String, body: [UInt8], to output: inout [UInt8]) {
        output.append(contentsOf: topic.utf8)
        output.append(.space)
        output.append(contentsOf: body)
    }

    /// Splits a line at its first space. A trailing `\n` or `\r\n` is tolerated. Fails with
    /// `.invalidTextLine` (no space, empty or malformed topic) or `.invalidJSON` (the body
    /// is not one JSON value); the body is checked for syntax only — decode it with `MessageCodec`.
    public static func parse(_ line: Substring) throws(ProtocolError) -> (topic: String, body: [UInt8]) {
        var line = line
        let result = line.withUTF8 { utf8 in
            Result { () throws(ProtocolError) in
                let (topic, body) = try split(UnsafeRawBufferPointer(utf8))
                try checkSyntax(body, topic: topic)
                return (topic, Array(body))
            }
        }
        return try result.get()
    }

    /// Reads one line straight into a message: the same checks, in the same order, and the
    /// same errors as `parse` followed by `MessageCodec.decode`, without copying the body.
    public static func decode(_ line: UnsafeRawBufferPointer) throws(ProtocolError) -> (topic: String, message: Message) {
        let (topic, body) = try split(line)
        do {
            return (topic, try MessageCodec.decode(body))
        } catch {
            // A body that is not one JSON value is reported as such, as `parse` does.
            try checkSyntax(body, topic: topic)
            throw error
        }
    }

    /// The topic and the body's bytes (inside `line`), checked as `parse` checks them, but
    /// for the body's syntax.
    public static func split(_ line: UnsafeRawBufferPointer) throws(ProtocolError) -> (topic: String, body: UnsafeRawBufferPointer) {
        var end = line.count
        while end > 0, line[end - 1] == .newline || line[end - 1] == .carriageReturn { end -= 1 }
        guard let space = line[..<end].firstIndex(of: .space) else {
            throw ProtocolError(code: .invalidTextLine, message: "text line has no space between topic and body: \(preview(line[..<end]))")
        }
        let topic = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<space]), as: UTF8.self)
        guard !topic.isEmpty else {
            throw ProtocolError(code: .invalidTextLine, message: "text line starts with a space: the topic is empty")
        }
        guard Topic.isValidTopic(topic) else {
            throw ProtocolError(code: .invalidTextLine, message: "text line topic \"\(topic)\" has control characters or is too long")
        }
        let body = UnsafeRawBufferPointer(rebasing: line[(space + 1)..<end])
        guard !body.isEmpty else {
            throw ProtocolError(code: .invalidJSON, message: "text line for \(topic) has an empty body")
        }
        return (topic, body)
    }

    /// Fails when `body` is not exactly one JSON value.
    private static func checkSyntax(_ body: UnsafeRawBufferPointer, topic: String) throws(ProtocolError) {
        var scanner = JSONScanner(body)
        do {
            try scanner.skipValue()
            try scanner.expectEnd()
        } catch {
            throw ProtocolError(code: error.code, message: "text line for \(topic): body is not JSON: \(error.message)")
        }
    }

    private static func preview(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}

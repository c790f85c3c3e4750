/// The text form (docs/protocol.md "Text form"): one message per line, the topic, one space,
/// the JSON body. `locus tail` prints it and every `--stdio` mode reads and writes it, so
/// services compose in a shell pipeline.
public enum TextForm {
    /// `topic + " " + body`, without a trailing newline.
    public static func line(topic: String, body: [UInt8]) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(topic.utf8.count + 1 + body.count)
        utf8.append(contentsOf: topic.utf8)
        utf8.append(.space)
        utf8.append(contentsOf: body)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Splits a line at its first space. A trailing `\n` or `\r\n` is tolerated. Fails with
    /// `.invalidTextLine` (no space, empty or malformed topic) or `.invalidJSON` (the body
    /// is not one JSON value); the body is checked for syntax only — decode it with `MessageCodec`.
    public static func parse(_ line: Substring) throws(ProtocolError) -> (topic: String, body: [UInt8]) {
        var utf8 = Array(line.utf8)
        while let last = utf8.last, last == .newline || last == .carriageReturn {
            utf8.removeLast()
        }
        guard let space = utf8.firstIndex(of: .space) else {
            throw ProtocolError(code: .invalidTextLine, message: "text line has no space between topic and body: \(preview(line))")
        }
        let topic = String(decoding: utf8[..<space], as: UTF8.self)
        guard !topic.isEmpty else {
            throw ProtocolError(code: .invalidTextLine, message: "text line starts with a space: the topic is empty")
        }
        guard Topic.isValidTopic(topic) else {
            throw ProtocolError(code: .invalidTextLine, message: "text line topic \"\(topic)\" has control characters or is too long")
        }
        let body = Array(utf8[(space + 1)...])
        guard !body.isEmpty else {
            throw ProtocolError(code: .invalidJSON, message: "text line for \(topic) has an empty body")
        }
        let syntax = body.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) in
                var scanner = JSONScanner(raw)
                try scanner.skipValue()
                try scanner.expectEnd()
            }
        }
        if case .failure(let error) = syntax {
            throw ProtocolError(code: error.code, message: "text line for \(topic): body is not JSON: \(error.message)")
        }
        return (topic, body)
    }

    private static func preview(_ line: Substring) -> String {
        line.count > 60 ? String(line.prefix(57)) + "…" : String(line)
    }
}

// libFuzzer entry for the JSON codec and the text form: compiled together with the
// LocusProtocol sources (see ../build-target.sh), so no module import is needed.

/// Feeds the input as one body and as text-form lines and checks the codec's promises:
/// no trap on any bytes, and for every accepted body the round-trip property
/// decode(encode(decode(x))) == decode(x), with the re-encoded body itself valid.
@_cdecl("LLVMFuzzerTestOneInput")
public func codecFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    CodecProperties.checkBody(bytes)

    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n").prefix(16) {
        guard let (topic, body) = try? TextForm.parse(line) else { continue }
        precondition(Topic.isValidTopic(topic), "parse returned an invalid topic")
        precondition(!body.isEmpty, "parse returned an empty body")
        body.withUnsafeBytes { CodecProperties.checkBody($0) }
        CodecProperties.checkLineRoundTrip(topic: topic, body: body)
    }
    return 0
}

/// The properties checked per input, kept apart from the entry so a crash names them.
enum CodecProperties {
    static func checkBody(_ bytes: UnsafeRawBufferPointer) {
        let first: Message
        do { first = try MessageCodec.decode(bytes) } catch {
            precondition(!error.message.isEmpty, "a rejection without a message")
            return
        }
        let encoded = MessageCodec.encode(first)
        let second: Message
        do { second = try MessageCodec.decode(encoded) } catch {
            preconditionFailure("re-encoded body rejected (\(error.message)): \(String(decoding: encoded, as: UTF8.self))")
        }
        precondition(second == first, "round trip changed the message: \(String(decoding: encoded, as: UTF8.self))")
        precondition(MessageCodec.encode(second) == encoded, "encoding is not stable")
    }

    /// A parsed line written back and parsed again gives the same topic and body (for
    /// UTF-8 bodies; `TextForm.line` builds a String, which repairs invalid UTF-8).
    static func checkLineRoundTrip(topic: String, body: [UInt8]) {
        guard String(validating: body, as: UTF8.self) != nil else { return }
        let line = TextForm.line(topic: topic, body: body)
        guard let again = try? TextForm.parse(line[...]) else {
            preconditionFailure("a written line does not parse: \(line)")
        }
        precondition(again.topic == topic && again.body == body, "text line round trip changed it: \(line)")
    }
}

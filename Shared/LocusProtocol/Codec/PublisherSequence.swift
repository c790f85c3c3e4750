/// Reads only a body's `src` and `seq`: a sharded receiver skips other shards' messages
/// without decoding them, yet still follows every publisher's counter, so the messages it
/// skipped on purpose are not counted as lost.
extension MessageCodec {
    /// The publisher and its counter, read up to the later of the two members and no further.
    /// Nil when the body does not start as a JSON object holding a string `src` and a
    /// non-negative integer `seq` (a body without `seq` takes no part in gap counting).
    public static func publisherSequence(_ bytes: UnsafeRawBufferPointer) -> (src: String, seq: Int)? {
        var scanner = JSONScanner(bytes)
        var src: String?
        var seq: Int?
        do {
            guard try !scanner.beginObject() else { return nil }
            repeat {
                guard let range = try scanner.readRawKey() else { return nil }
                if scanner.bytes(in: range, equal: "src") {
                    src = try scanner.readString()
                } else if scanner.bytes(in: range, equal: "seq") {
                    guard let integer = exactInteger(try scanner.readNumber()), integer >= 0 else { return nil }
                    seq = integer
                } else {
                    try scanner.skipValue()
                }
                if let src, let seq { return (src, seq) }
            } while try scanner.nextMember()
        } catch {
            return nil
        }
        return nil
    }
}

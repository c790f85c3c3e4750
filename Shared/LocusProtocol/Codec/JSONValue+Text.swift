/// JSON text to and from `JSONValue` with the codec's own reader and writer, for code that
/// edits a body it passes on (adds or removes members) without a second JSON library.
extension JSONValue {
    /// Parses the whole of `bytes` as one JSON value, by the codec's rules (RFC 8259, no NaN
    /// or infinities, nesting bounded; a repeated member name: the last one wins).
    public init(parsing bytes: [UInt8]) throws(ProtocolError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) -> JSONValue in
                var scanner = JSONScanner(raw)
                let value = try scanner.readValue()
                try scanner.expectEnd()
                return value
            }
        }
        self = try result.get()
    }

    /// Compact JSON text, object members in sorted key order so the same value gives the same bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.takeBytes()
    }
}

/// A byte-level JSON writer: compact output, keys in the order written, strings escaped
/// per RFC 8259 (quote, backslash and every control character), numbers in the shortest
/// form that reads back to the same Double, integers without ".0".
struct JSONWriter: TextOutputStream {
    /// Internal (not private) so the number formatting in JSONWriter+Numbers.swift writes here too.
    var buffer: JSONOutputBuffer
    /// Whether the next value or key needs a separating comma.
    private var needsComma = false

    init(capacity: Int = 256) {
        buffer = JSONOutputBuffer(capacity: capacity)
    }

    /// A writer that continues `output` (moved in, so appending stays in place); give the
    /// bytes back with `takeBytes()`.
    init(appendingTo output: inout [UInt8]) {
        buffer = JSONOutputBuffer(continuing: &output)
    }

    /// The bytes written so far (a copy).
    var bytes: [UInt8] { buffer.written }

    /// The bytes written, moved out of the writer.
    mutating func takeBytes() -> [UInt8] {
        buffer.take()
    }

    // MARK: - Structure

    mutating func beginObject() {
        separate()
        buffer.append(.openBrace)
        needsComma = false
    }

    mutating func endObject() {
        buffer.append(.closeBrace)
        needsComma = true
    }

    mutating func beginArray() {
        separate()
        buffer.append(.openBracket)
        needsComma = false
    }

    mutating func endArray() {
        buffer.append(.closeBracket)
        needsComma = true
    }

    /// Writes `"name":`; the next call writes its value.
    @inline(__always)
    mutating func key(_ name: StaticString) {
        let comma = needsComma
        let count = name.utf8CodeUnitCount
        buffer.write(upTo: count + 4) { out in
            var at = 0
            if comma {
                out[0] = .comma
                at = 1
            }
            out[at] = .quote
            (out + at + 1).update(from: name.utf8Start, count: count)
            out[at + count + 1] = .quote
            out[at + count + 2] = .colon
            return at + count + 3
        }
        needsComma = false
    }

    /// Writes a key known only at run time (object maps such as health counters).
    mutating func key(_ name: String) {
        if needsComma { buffer.append(.comma) }
        appendEscaped(name)
        buffer.append(.colon)
        needsComma = false
    }

    @inline(__always)
    private mutating func separate() {
        if needsComma { buffer.append(.comma) }
    }

    // MARK: - Scalars

    /// Writes a number. A non-finite value (which validation forbids) is written as `null`
    /// so a receiver rejects it instead of trusting a made-up 0.
    mutating func value(_ number: Double) {
        separate()
        needsComma = true
        guard number.isFinite else {
            appendLiteral("null")
            return
        }
        if number.magnitude < 1e15, let integer = exactInteger(number) {
            appendInteger(integer)
        } else if !appendShortDecimal(number) {
            // Double's shortest round-trip text, streamed without building a String.
            number.write(to: &self)
        }
    }

    mutating func value(_ integer: Int) {
        separate()
        needsComma = true
        appendInteger(integer)
    }

    mutating func value(_ flag: Bool) {
        separate()
        needsComma = true
        appendLiteral(flag ? "true" : "false")
    }

    mutating func value(_ text: String) {
        separate()
        needsComma = true
        appendEscaped(text)
    }

    mutating func nullValue() {
        separate()
        needsComma = true
        appendLiteral("null")
    }

    // MARK: - Fields (absent when nil: a field that is unknown is absent)

    @inline(__always) mutating func field(_ name: StaticString, _ number: Double) { key(name); value(number) }
    @inline(__always) mutating func field(_ name: StaticString, _ integer: Int) { key(name); value(integer) }
    @inline(__always) mutating func field(_ name: StaticString, _ flag: Bool) { key(name); value(flag) }
    @inline(__always) mutating func field(_ name: StaticString, _ text: String) { key(name); value(text) }
    @inline(__always) mutating func field<Word: RawRepresentable<String>>(_ name: StaticString, _ word: Word) {
        key(name)
        value(word.rawValue)
    }

    @inline(__always) mutating func field(_ name: StaticString, _ number: Double?) {
        if let number { field(name, number) }
    }
    @inline(__always) mutating func field(_ name: StaticString, _ integer: Int?) {
        if let integer { field(name, integer) }
    }
    @inline(__always) mutating func field(_ name: StaticString, _ flag: Bool?) {
        if let flag { field(name, flag) }
    }
    @inline(__always) mutating func field(_ name: StaticString, _ text: String?) {
        if let text { field(name, text) }
    }
    @inline(__always) mutating func field<Word: RawRepresentable<String>>(_ name: StaticString, _ word: Word?) {
        if let word { field(name, word) }
    }

    /// Writes any JSON value; object members in sorted key order so output is stable.
    mutating func value(_ json: JSONValue) {
        switch json {
        case .null: nullValue()
        case .bool(let flag): value(flag)
        case .number(let number): value(number)
        case .string(let text): value(text)
        case .array(let elements):
            beginArray()
            for element in elements { value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for name in members.keys.sorted() {
                key(name)
                value(members[name]!)
            }
            endObject()
        }
    }

    // MARK: - Bytes

    /// `TextOutputStream`, so numbers can print themselves straight into the buffer.
    mutating func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
    }

    /// The standard library's ASCII fast path for numbers (avoids a String per Double).
    mutating func _writeASCII(_ ascii: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: ascii)
    }

    private mutating func appendLiteral(_ literal: StaticString) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func appendEscaped(_ text: String) {
        // Nearly every string needs no escape: quoted and copied in one step, the check made
        // while copying (`withUTF8` lends even a small, inline string as contiguous bytes).
        // One that does is written again, byte by byte.
        var text = text
        text.withUTF8 { utf8 in
            var clean = true
            buffer.write(upTo: utf8.count + 2) { out in
                out[0] = .quote
                for (offset, byte) in utf8.enumerated() {
                    guard byte >= 0x20 && byte != .quote && byte != .backslash else {
                        clean = false
                        return 0
                    }
                    out[offset + 1] = byte
                }
                out[utf8.count + 1] = .quote
                return utf8.count + 2
            }
            guard !clean else { return }
            buffer.append(.quote)
            for byte in utf8 { appendEscaped(byte) }
            buffer.append(.quote)
        }
    }

    @inline(__always)
    private mutating func appendEscaped(_ byte: UInt8) {
        if byte >= 0x20 && byte != .quote && byte != .backslash {
            buffer.append(byte)
            return
        }
        buffer.append(.backslash)
        switch byte {
        case .quote: buffer.append(.quote)
        case .backslash: buffer.append(.backslash)
        case .newline: buffer.append(UInt8(ascii: "n"))
        case .carriageReturn: buffer.append(UInt8(ascii: "r"))
        case .tab: buffer.append(UInt8(ascii: "t"))
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            buffer.append(contentsOf: [UInt8(ascii: "u"), .zero, .zero, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }
}

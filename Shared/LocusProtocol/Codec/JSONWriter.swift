/// A byte-level JSON writer: compact output, keys in the order written, strings escaped
/// per RFC 8259 (quote, backslash and every control character), numbers in the shortest
/// form that reads back to the same Double, integers without ".0".
struct JSONWriter: TextOutputStream {
    private(set) var bytes: [UInt8]
    /// Whether the next value or key needs a separating comma.
    private var needsComma = false

    init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: - Structure

    mutating func beginObject() {
        separate()
        bytes.append(.openBrace)
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(.closeBrace)
        needsComma = true
    }

    mutating func beginArray() {
        separate()
        bytes.append(.openBracket)
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(.closeBracket)
        needsComma = true
    }

    /// Writes `"name":`; the next call writes its value.
    @inline(__always)
    mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(.comma) }
        bytes.append(.quote)
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(.quote)
        bytes.append(.colon)
        needsComma = false
    }

    /// Writes a key known only at run time (object maps such as health counters).
    mutating func key(_ name: String) {
        if needsComma { bytes.append(.comma) }
        appendEscaped(name)
        bytes.append(.colon)
        needsComma = false
    }

    @inline(__always)
    private mutating func separate() {
        if needsComma { bytes.append(.comma) }
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
        bytes.append(contentsOf: string.utf8)
    }

    /// The standard library's ASCII fast path for numbers (avoids a String per Double).
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }

    private mutating func appendLiteral(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func appendInteger(_ integer: Int) {
        if integer < 0 { bytes.append(.minus) }
        var magnitude = integer.magnitude
        if magnitude < 10 {
            bytes.append(.zero + UInt8(magnitude))
            return
        }
        var digits: (UInt64, UInt64) = (0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            while magnitude > 0 {
                scratch[count] = .zero + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            while count > 0 {
                count -= 1
                bytes.append(scratch[count])
            }
        }
    }

    /// Writes `number` as `digits.fraction` when a decimal with at most 15 significant
    /// digits reads back to exactly `number` — the common case for coordinates and
    /// accuracies. The check divides an exact integer by an exact power of ten, which
    /// IEEE 754 rounds correctly (Clinger), so the text is as exact as the shortest form.
    /// Returns false (nothing written) otherwise.
    private mutating func appendShortDecimal(_ number: Double) -> Bool {
        let magnitude = number.magnitude
        guard magnitude >= 1e-6, magnitude < 1e15 else { return false }
        var scale = 1.0
        for fractionDigits in 1...15 {
            scale *= 10
            let scaled = magnitude * scale
            guard scaled < 1e15 else { return false }
            let candidate = UInt64(scaled + 0.5)
            guard Double(candidate) / scale == magnitude else { continue }
            if number < 0 { bytes.append(.minus) }
            appendFixedPoint(candidate, fractionDigits: fractionDigits)
            return true
        }
        return false
    }

    /// Writes `value / 10^fractionDigits` in plain decimal notation, trailing zeros removed.
    private mutating func appendFixedPoint(_ value: UInt64, fractionDigits: Int) {
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { scratch in
            var remaining = value
            var count = 0
            while remaining > 0 || count <= fractionDigits {
                scratch[count] = .zero + UInt8(remaining % 10)
                remaining /= 10
                count += 1
            }
            var lowest = 0
            while lowest < fractionDigits - 1 && scratch[lowest] == .zero { lowest += 1 }
            while count > lowest {
                count -= 1
                bytes.append(scratch[count])
                if count == fractionDigits && count > lowest { bytes.append(UInt8(ascii: ".")) }
            }
        }
    }

    private mutating func appendEscaped(_ text: String) {
        bytes.append(.quote)
        let handled: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            if !utf8.contains(where: { $0 < 0x20 || $0 == .quote || $0 == .backslash }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { appendEscaped(byte) }
        }
        if handled == nil {
            for byte in text.utf8 { appendEscaped(byte) }
        }
        bytes.append(.quote)
    }

    @inline(__always)
    private mutating func appendEscaped(_ byte: UInt8) {
        if byte >= 0x20 && byte != .quote && byte != .backslash {
            bytes.append(byte)
            return
        }
        bytes.append(.backslash)
        switch byte {
        case .quote: bytes.append(.quote)
        case .backslash: bytes.append(.backslash)
        case .newline: bytes.append(UInt8(ascii: "n"))
        case .carriageReturn: bytes.append(UInt8(ascii: "r"))
        case .tab: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), .zero, .zero, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }

    /// The text `value(_:)` would write for a number, for messages.
    static func numberText(_ number: Double) -> String {
        var writer = JSONWriter(capacity: 32)
        writer.value(number)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

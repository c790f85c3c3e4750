/// A byte-level JSON writer: compact output, keys in the order written, strings escaped
/// per RFC 8259 (quote, backslash and every control character), numbers in the shortest
/// form that reads back to the same Double, integers without ".0".
struct JSONWriter: TextOutputStream {
    private var buffer: JSONOutputBuffer
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

    private mutating func appendInteger(_ integer: Int) {
        if integer < 0 { buffer.append(.minus) }
        var magnitude = integer.magnitude
        if magnitude < 10 {
            buffer.append(.zero + UInt8(magnitude))
            return
        }
        // Digits from the right into a stack buffer, then one append.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { scratch in
            var first = scratch.count
            while magnitude > 0 {
                first -= 1
                scratch[first] = .zero + UInt8(magnitude % 10)
                magnitude /= 10
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[first...]))
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
        // A decimal that works with k fraction digits also works with the most digits that
        // keep below 10^15 (the candidate is then exactly 10^(most − k) times larger), so
        // trying that one first rejects a full-precision number with one division, not fifteen.
        var most = 1.0, power = 1.0
        for _ in 1...15 {
            power *= 10
            guard magnitude * power < 1e15 else { break }
            most = power
        }
        guard most > 1, Double(UInt64(magnitude * most + 0.5)) / most == magnitude else { return false }
        var scale = 1.0
        for fractionDigits in 1...15 {
            scale *= 10
            let scaled = magnitude * scale
            guard scaled < 1e15 else { return false }
            let candidate = UInt64(scaled + 0.5)
            guard Double(candidate) / scale == magnitude else { continue }
            if number < 0 { buffer.append(.minus) }
            appendFixedPoint(candidate, fractionDigits: fractionDigits)
            return true
        }
        return false
    }

    /// Writes `value / 10^fractionDigits` in plain decimal notation, trailing zeros removed.
    private mutating func appendFixedPoint(_ value: UInt64, fractionDigits: Int) {
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { scratch in
            // Right to left: fraction digits (trailing zeros dropped), the point, the integer part.
            var first = scratch.count
            var remaining = value
            var fraction = fractionDigits
            var significant = false
            while fraction > 0 {
                let digit = UInt8(remaining % 10)
                remaining /= 10
                fraction -= 1
                if digit != 0 || significant || fraction == 0 {
                    significant = true
                    first -= 1
                    scratch[first] = .zero + digit
                }
            }
            first -= 1
            scratch[first] = UInt8(ascii: ".")
            repeat {
                first -= 1
                scratch[first] = .zero + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[first...]))
        }
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

    /// The text `value(_:)` would write for a number, for messages.
    static func numberText(_ number: Double) -> String {
        var writer = JSONWriter(capacity: 32)
        writer.value(number)
        return String(decoding: writer.takeBytes(), as: UTF8.self)
    }
}

/// The writer's output: `storage[..<count]` is written, the rest is zeroed room, so a token
/// is written through one pointer after one room check instead of one Array append per byte.
struct JSONOutputBuffer {
    private var storage: [UInt8]
    private var count: Int

    init(capacity: Int) {
        storage = [UInt8](repeating: 0, count: max(capacity, 16))
        count = 0
    }

    /// Continues `output`, moved in.
    init(continuing output: inout [UInt8]) {
        storage = output
        output = []
        count = storage.count
    }

    /// Lets `body` write at most `limit` bytes at the end; it returns how many it wrote.
    @inline(__always)
    mutating func write(upTo limit: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < limit { grow(limit) }
        let start = count
        count += storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    private mutating func grow(_ limit: Int) {
        if limit <= Self.room.count {
            storage.append(contentsOf: Self.room)
        } else {
            storage.append(contentsOf: repeatElement(0, count: limit))
        }
    }

    /// Zeroed room added at a time (copied: faster than filling).
    private static let room = [UInt8](repeating: 0, count: 512)

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        write(upTo: 1) { out in
            out.pointee = byte
            return 1
        }
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        write(upTo: bytes.count) { out in
            out.update(from: source, count: bytes.count)
            return bytes.count
        }
    }

    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    mutating func append(contentsOf text: String.UTF8View) {
        var text = String(text)
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// A copy of what was written.
    var written: [UInt8] { Array(storage[..<count]) }

    /// What was written, moved out; the buffer is empty afterwards.
    mutating func take() -> [UInt8] {
        storage.removeSubrange(count...)
        defer {
            storage = []
            count = 0
        }
        return storage
    }
}

/// Makes message ids unique across processes without coordination: a random 64-bit
/// prefix drawn once per generator, then a counter (`"9f2c…e1-42"`). Receivers
/// de-duplicate on these ids, so two publishers must never collide.
public struct MessageIDGenerator: Sendable {
    /// The prefix's 17 bytes (16 hex digits and `-`), packed in three words so that an id is
    /// written in one stack buffer and becomes a String in one step.
    private let prefix: (UInt64, UInt64, UInt8)
    private var counter: UInt64 = 0

    public init() {
        var random = SystemRandomNumberGenerator()
        let bits = random.next() as UInt64
        let hex = Array(String(bits, radix: 16).utf8)
        let text = [UInt8](repeating: UInt8(ascii: "0"), count: 16 - hex.count) + hex
        func word(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        prefix = (word(text[0..<8]), word(text[8..<16]), UInt8(ascii: "-"))
    }

    /// The next id from this generator.
    public mutating func next() -> String {
        counter += 1
        var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64) = (prefix.0, prefix.1, UInt64(prefix.2), 0, 0)
        return withUnsafeMutableBytes(of: &scratch) { bytes in
            // The counter's digits right after the prefix: written backwards from the end, then moved up.
            var value = counter
            var end = bytes.count
            repeat {
                end -= 1
                bytes[end] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            let digits = bytes.count - end
            for offset in 0..<digits { bytes[17 + offset] = bytes[end + offset] }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<(17 + digits)]), as: UTF8.self)
        }
    }
}

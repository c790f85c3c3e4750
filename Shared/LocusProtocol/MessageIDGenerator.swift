/// Makes message ids unique across processes without coordination: a random 64-bit
/// prefix drawn once per generator, then a counter (`"9f2c…e1-42"`). Receivers
/// de-duplicate on these ids, so two publishers must never collide.
public struct MessageIDGenerator: Sendable {
    private let prefix: String
    private var counter: UInt64 = 0

    public init() {
        var random = SystemRandomNumberGenerator()
        let bits = random.next() as UInt64
        let hex = String(bits, radix: 16)
        prefix = String(repeating: "0", count: 16 - hex.count) + hex + "-"
    }

    /// The next id from this generator.
    public mutating func next() -> String {
        counter += 1
        return prefix + String(counter)
    }
}

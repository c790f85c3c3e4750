/// Why one line was not turned into a sentence.
///
/// Every case carries enough text to be shown on `error.provider` as is, so an
/// operator can tell a noisy cable (bad checksums) from a receiver speaking a
/// dialect we skip (vendor or unsupported sentences).
public enum NMEAParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The checksum after `*` does not match the XOR of the sentence body.
    case badChecksum(expected: UInt8, computed: UInt8)
    /// The line stops before its checksum (`*hh`): cut off in transit or by a buffer.
    case truncated(String)
    /// The line is not an NMEA sentence at all (no `$`, binary bytes, empty).
    case notNMEA(String)
    /// The line is longer than any NMEA sentence can be.
    case tooLong(byteCount: Int)
    /// A proprietary sentence (`$P…`), e.g. `PGRME`; counted and skipped.
    case vendor(String)
    /// A well-formed standard sentence we do not decode, e.g. `GPRMB`.
    case unsupported(String)
    /// A field that the sentence needs could not be read.
    case invalidField(String)

    public var description: String {
        switch self {
        case let .badChecksum(expected, computed):
            "bad checksum: line says \(hex(expected)), body sums to \(hex(computed))"
        case let .truncated(why): "truncated sentence: \(why)"
        case let .notNMEA(why): "not NMEA: \(why)"
        case let .tooLong(count): "line too long: \(count) bytes without a sentence end"
        case let .vendor(address): "vendor sentence \(address) skipped"
        case let .unsupported(address): "unsupported sentence \(address) skipped"
        case let .invalidField(why): "invalid field: \(why)"
        }
    }

    private func hex(_ value: UInt8) -> String {
        func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x37 + nibble }
        return String(decoding: [digit(value >> 4), digit(value & 0xF)], as: UTF8.self)
    }
}

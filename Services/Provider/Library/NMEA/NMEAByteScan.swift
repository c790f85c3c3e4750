/// Word-at-a-time scans for the decoder's two per-byte loops: finding line ends and
/// summing a sentence body. Eight bytes are tested with a few bit operations instead of
/// a comparison each, which matters most where every comparison is instrumented (the
/// fuzz build) and helps a plain build on long logs too.
enum NMEAByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let lowBits: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// 0x80 in each byte of `word` equal to `byte`, 0 elsewhere (exact).
    @inline(__always)
    static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let zeroWhereEqual = word ^ (ones &* UInt64(byte))
        return ~(((zeroWhereEqual & lowBits) &+ lowBits) | zeroWhereEqual | lowBits)
    }

    /// Index of the first CR or LF at or after `from`, or `bytes.count`.
    static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = from
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let ends = matches(word, 0x0A) | matches(word, 0x0D)
            if ends != 0 { return index + ends.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < bytes.count, base[index] != 0x0A, base[index] != 0x0D { index += 1 }
        return index
    }

    /// Calls `body` with the index of every `byte` in `bytes`, in order.
    @inline(__always)
    static func forEach(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var index = 0
        while index + 8 <= bytes.count {
            var found = matches(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), byte)
            while found != 0 {
                body(index + found.trailingZeroBitCount / 8)
                found &= found &- 1
            }
            index += 8
        }
        while index < bytes.count {
            if base[index] == byte { body(index) }
            index += 1
        }
    }

    /// Index of the first `byte` at or after `from`, or `bytes.count`.
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = from
        while index + 8 <= bytes.count {
            let found = matches(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), byte)
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < bytes.count, base[index] != byte { index += 1 }
        return index
    }

    /// Whether all eight bytes are printable ASCII (0x20–0x7E) other than `*` and `$`:
    /// the bytes a sentence body is made of, which the checksum can take as a block.
    @inline(__always)
    static func isPlainBody(_ word: UInt64) -> Bool {
        let below0x20 = (word &- ones &* 0x20) & ~word & highBits
        let above0x7E = ((word &+ ones) | word) & highBits
        return below0x20 | above0x7E | matches(word, 0x2A) | matches(word, 0x24) == 0
    }

    /// The XOR of the eight bytes of `word`.
    @inline(__always)
    static func xorFold(_ word: UInt64) -> UInt8 {
        var folded = word ^ (word >> 32)
        folded ^= folded >> 16
        folded ^= folded >> 8
        return UInt8(truncatingIfNeeded: folded)
    }
}

/// Line and column of a byte offset, for error messages. Errors are the common outcome
/// for a fuzzer's inputs, so this reads eight bytes at a time: newlines and UTF-8 lead
/// bytes are counted with bit masks instead of a comparison per byte.
enum XMLPosition {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let lowBits: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// Lines count LF; the column counts characters (bytes that are not UTF-8
    /// continuation bytes) since the last LF. Both start at 1.
    static func of(offset end: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (line: Int, column: Int) {
        guard let base = bytes.baseAddress, end > start else { return (1, 1) }
        var line = 1
        var lineStart = start
        var index = start
        while index + 8 <= end {
            let newlines = newlineMask(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            if newlines != 0 {
                line += newlines.nonzeroBitCount
                // Little-endian: the highest set bit marks the last LF of the word.
                lineStart = index + (63 - newlines.leadingZeroBitCount) / 8 + 1
            }
            index += 8
        }
        while index < end {
            if base[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        var continuations = 0
        index = lineStart
        while index + 8 <= end {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            continuations += (word & ~(word << 1) & highBits).nonzeroBitCount
            index += 8
        }
        while index < end {
            if base[index] & 0xC0 == 0x80 { continuations += 1 }
            index += 1
        }
        return (line, end - lineStart - continuations + 1)
    }

    /// 0x80 in each byte of `word` that is LF, 0 elsewhere (exact, no false positives).
    @inline(__always)
    private static func newlineMask(_ word: UInt64) -> UInt64 {
        let zeroWhereNewline = word ^ (ones &* 0x0A)
        return ~(((zeroWhereNewline & lowBits) &+ lowBits) | zeroWhereNewline | lowBits)
    }
}

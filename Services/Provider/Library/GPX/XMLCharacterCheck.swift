/// Checks, before any markup is read, that the input is text an XML parser may see:
/// well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF) and
/// only the characters XML 1.0 allows (no NUL, no C0 controls except tab, LF and CR,
/// no U+FFFE/U+FFFF). One pass over the bytes, eight at a time where they are plain
/// ASCII, so the tokenizer after it can treat every byte ≥ 0x80 as part of a valid name
/// or text character.
enum XMLCharacterCheck {
    /// What is wrong with the first offending byte.
    enum Problem: Equatable, Sendable {
        case nul
        case controlCharacter(UInt8)
        case invalidUTF8
        case notAnXMLCharacter(UInt32)
    }

    /// The offset and kind of the first problem, or nil when the whole input is fine.
    static func firstProblem(in bytes: UnsafeBufferPointer<UInt8>) -> (offset: Int, problem: Problem)? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            // Fast path: eight ASCII bytes, none below 0x20, need no look at each one.
            if index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let highBits: UInt64 = 0x8080_8080_8080_8080
                let below0x20 = (word &- 0x2020_2020_2020_2020) & ~word & highBits
                if word & highBits == 0, below0x20 == 0 {
                    index += 8
                    continue
                }
            }
            let byte = base[index]
            if byte < 0x80 {
                if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                    return (index, byte == 0 ? .nul : .controlCharacter(byte))
                }
                index += 1
                continue
            }
            guard let (scalar, length) = decodeScalar(base, at: index, count: count) else {
                return (index, .invalidUTF8)
            }
            if scalar == 0xFFFE || scalar == 0xFFFF { return (index, .notAnXMLCharacter(scalar)) }
            index += length
        }
        return nil
    }

    /// Decodes the multi-byte sequence starting at `index` following the well-formed
    /// byte sequences of Unicode's table 3-7; nil for anything else.
    private static func decodeScalar(_ base: UnsafePointer<UInt8>, at index: Int, count: Int) -> (UInt32, Int)? {
        let lead = base[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> UInt32? {
            guard index + offset < count, range.contains(base[index + offset]) else { return nil }
            return UInt32(base[index + offset] & 0x3F)
        }
        switch lead {
        case 0xC2...0xDF:
            guard let b1 = continuation(1) else { return nil }
            return (UInt32(lead & 0x1F) << 6 | b1, 2)
        case 0xE0...0xEF:
            let secondRange: ClosedRange<UInt8> = lead == 0xE0 ? 0xA0...0xBF : lead == 0xED ? 0x80...0x9F : 0x80...0xBF
            guard let b1 = continuation(1, secondRange), let b2 = continuation(2) else { return nil }
            return (UInt32(lead & 0x0F) << 12 | b1 << 6 | b2, 3)
        case 0xF0...0xF4:
            let secondRange: ClosedRange<UInt8> = lead == 0xF0 ? 0x90...0xBF : lead == 0xF4 ? 0x80...0x8F : 0x80...0xBF
            guard let b1 = continuation(1, secondRange), let b2 = continuation(2), let b3 = continuation(3) else { return nil }
            return (UInt32(lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3, 4)
        default:
            return nil
        }
    }
}

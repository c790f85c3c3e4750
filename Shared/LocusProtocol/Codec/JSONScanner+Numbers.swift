#if canImport(Glibc)
import Glibc
#endif

/// Number reading: the JSON number grammar checked byte by byte, converted with Clinger's
/// exact fast path (mantissa ≤ 2^53, |power of ten| ≤ 22) and the standard library's
/// correctly rounded parser otherwise. Overflow to infinity is rejected as `.notFinite`.
extension JSONScanner {
    /// Reads a JSON number token.
    mutating func readNumber() throws(ProtocolError) -> Double {
        skipWhitespace()
        let start = index
        var negative = false
        if peek() == .minus {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent10 = 0

        let first = peek()
        guard first >= .zero && first <= .nine else {
            index = start
            try rejectNonFiniteLiteral()
            throw syntaxError("expected a number\(foundDescription)")
        }
        if first == .zero {
            index += 1
        } else {
            while index < bytes.count, bytes[index] >= .zero, bytes[index] <= .nine {
                accumulate(bytes[index], into: &mantissa, digits: &significantDigits)
                index += 1
            }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard peek() >= .zero && peek() <= .nine else { throw syntaxError("expected a digit after '.'") }
            while index < bytes.count, bytes[index] >= .zero, bytes[index] <= .nine {
                accumulate(bytes[index], into: &mantissa, digits: &significantDigits)
                exponent10 -= 1
                index += 1
            }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if peek() == .minus || peek() == UInt8(ascii: "+") {
                exponentNegative = peek() == .minus
                index += 1
            }
            guard peek() >= .zero && peek() <= .nine else { throw syntaxError("expected a digit in an exponent") }
            var explicitExponent = 0
            while index < bytes.count, bytes[index] >= .zero, bytes[index] <= .nine {
                if explicitExponent < 100_000 { explicitExponent = explicitExponent * 10 + Int(bytes[index] - .zero) }
                index += 1
            }
            exponent10 += exponentNegative ? -explicitExponent : explicitExponent
        }

        if significantDigits <= 19, mantissa <= 1 << 53, exponent10 >= -22, exponent10 <= 22 {
            var value = Double(mantissa)
            if exponent10 < 0 {
                value /= JSONScanner.powersOfTen[-exponent10]
            } else if exponent10 > 0 {
                value *= JSONScanner.powersOfTen[exponent10]
            }
            return negative ? -value : value
        }
        // 16 to 19 digits (a full-precision Double as Swift prints it): exact in 128 bits.
        if significantDigits <= 19, exponent10 >= -19, exponent10 <= 19 {
            let value = exponent10 < 0 ? JSONScanner.quotient(mantissa, tenTo: -exponent10)
                : JSONScanner.product(mantissa, tenTo: exponent10)
            return negative ? -value : value
        }
        let value = JSONScanner.correctlyRounded(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        guard value.isFinite else {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            throw ProtocolError(code: .notFinite, message: "number \(text) does not fit a 64-bit float")
        }
        return value
    }

    /// Converts a checked JSON number token with correct rounding: C `strtod` on a
    /// NUL-terminated stack copy (no heap allocation). Should a process locale make
    /// `strtod` stop early (a decimal comma), the standard library's locale-free parser
    /// takes over.
    static func correctlyRounded(_ token: UnsafeRawBufferPointer) -> Double {
        #if canImport(Glibc)
        if token.count < 64 {
            let converted: Double? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                for offset in 0..<token.count { buffer[offset] = CChar(bitPattern: token[offset]) }
                buffer[token.count] = 0
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(buffer.baseAddress!, &end)
                return end == buffer.baseAddress! + token.count ? value : nil
            }
            if let converted { return converted }
        }
        #endif
        return Double(String(decoding: token, as: UTF8.self)) ?? .nan
    }

    /// `w / 10^n`, correctly rounded, for w < 2^64 and 0 < n ≤ 19: the 64-bit quotient of
    /// w·2^s by 10^n (s chosen so it has exactly 64 bits) and whether a remainder is left
    /// decide the rounding to 53 bits exactly, as a correctly rounded parser would.
    static func quotient(_ w: UInt64, tenTo n: Int) -> Double {
        guard w != 0 else { return 0 }
        let d = integerPowersOfTen[n]
        let wBits = 64 - w.leadingZeroBitCount, dBits = 64 - d.leadingZeroBitCount
        var shift = 63 - wBits + dBits
        var (q, r) = divide(w, shiftedBy: shift, by: d)
        if q < 1 << 63 {
            shift += 1
            (q, r) = divide(w, shiftedBy: shift, by: d)
        }
        return rounded(q, sticky: r != 0, exponent: -shift)
    }

    /// `w × 10^n`, correctly rounded, for w < 2^64 and 0 < n ≤ 19 (the product is exact in 128 bits).
    static func product(_ w: UInt64, tenTo n: Int) -> Double {
        guard w != 0 else { return 0 }
        let (high, low) = w.multipliedFullWidth(by: integerPowersOfTen[n])
        if high == 0 { return rounded(low, sticky: false, exponent: 0) }
        // The top 64 bits, with the bits below them folded into the rounding.
        let shift = 64 - high.leadingZeroBitCount
        let top = high << (64 - shift) | low >> shift
        let dropped = low << (64 - shift)
        return rounded(top, sticky: dropped != 0, exponent: shift, preNormalised: true)
    }

    /// (w · 2^shift) / d and its remainder, for a quotient below 2^64.
    private static func divide(_ w: UInt64, shiftedBy shift: Int, by d: UInt64) -> (UInt64, UInt64) {
        let high = shift == 0 ? 0 : shift >= 64 ? w << (shift - 64) : w >> (64 - shift)
        let low = shift >= 64 ? 0 : w << shift
        return d.dividingFullWidth((high, low))
    }

    /// `value × 2^exponent` (plus less than one unit when `sticky`) rounded half-even to a Double.
    private static func rounded(_ value: UInt64, sticky: Bool, exponent: Int, preNormalised: Bool = false) -> Double {
        let zeros = value.leadingZeroBitCount
        let normalised = preNormalised ? value : value << zeros
        let exponent = preNormalised ? exponent : exponent - zeros
        // 64 bits: keep 53, round on the 11 below and the sticky bit.
        var mantissa = normalised >> 11
        let rest = normalised & 0x7FF
        if rest > 0x400 || (rest == 0x400 && (sticky || mantissa & 1 == 1)) { mantissa += 1 }
        return Double(sign: .plus, exponent: exponent + 11, significand: Double(mantissa))
    }

    static let integerPowersOfTen: [UInt64] = (0...19).map { power in (0..<power).reduce(UInt64(1)) { value, _ in value * 10 } }

    @inline(__always)
    private func accumulate(_ digit: UInt8, into mantissa: inout UInt64, digits: inout Int) {
        if digits < 19 {
            mantissa = mantissa &* 10 &+ UInt64(digit - .zero)
            if mantissa != 0 { digits += 1 }
        } else {
            digits += 1
        }
    }

    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}

/// The integer a JSON number stands for, when it is one exactly (so `3` and `3.0` are, `3.5` is not).
@inline(__always)
func exactInteger(_ value: Double) -> Int? {
    guard value.magnitude <= 9_007_199_254_740_992 else { return nil }
    let integer = Int(value)
    return Double(integer) == value ? integer : nil
}

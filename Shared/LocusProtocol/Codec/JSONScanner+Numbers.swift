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

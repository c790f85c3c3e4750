/// Number text: integers digit by digit, decimals in the shortest exact fixed-point form
/// when one exists (the common case for coordinates); `JSONWriter.value(_:)` falls back to
/// Double's own round-trip text otherwise.
extension JSONWriter {
    mutating func appendInteger(_ integer: Int) {
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
    mutating func appendShortDecimal(_ number: Double) -> Bool {
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
    mutating func appendFixedPoint(_ value: UInt64, fractionDigits: Int) {
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

    /// The text `value(_:)` would write for a number, for messages.
    static func numberText(_ number: Double) -> String {
        var writer = JSONWriter(capacity: 32)
        writer.value(number)
        return String(decoding: writer.takeBytes(), as: UTF8.self)
    }
}

/// Numbers read straight from bytes, without building a String per field: a million-row
/// import spends most of its time here otherwise.
enum CSVNumber {
    /// An optionally signed decimal integer of at most 18 digits; nil for anything else.
    static func integer(_ field: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if index < field.count, field[index] == UInt8(ascii: "-") || field[index] == UInt8(ascii: "+") {
            negative = field[index] == UInt8(ascii: "-")
            index += 1
        }
        let digits = field.count - index
        guard digits > 0, digits <= 18 else { return nil }
        var value: Int64 = 0
        while index < field.count {
            let digit = field[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    /// A decimal number (`-13.405023`, `52`, `1.5e3`): digits are gathered exactly and scaled
    /// by one power of ten, which is correctly rounded while the digits fit 2^53; longer
    /// numbers go through the standard library's parser.
    static func real(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        var negative = false
        if index < field.count, field[index] == UInt8(ascii: "-") || field[index] == UInt8(ascii: "+") {
            negative = field[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var seenPoint = false
        var any = false
        while index < field.count {
            let byte = field[index]
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                any = true
                if digits < 19 {
                    mantissa = mantissa * 10 + UInt64(digit)
                    if mantissa > 0 { digits += 1 }
                    if seenPoint { fraction += 1 }
                } else if !seenPoint {
                    return slow(field)
                }
            }
            index += 1
        }
        guard any else { return nil }
        var exponent = -fraction
        if index < field.count {
            guard field[index] == UInt8(ascii: "e") || field[index] == UInt8(ascii: "E") else { return nil }
            let rest = UnsafeBufferPointer(rebasing: field[(index + 1)...])
            guard let power = integer(rest), abs(power) < 400 else { return nil }
            exponent += Int(power)
        }
        guard mantissa < 1 << 53, abs(exponent) <= 22 else { return slow(field) }
        let scale = powersOfTen[abs(exponent)]
        let magnitude = exponent >= 0 ? Double(mantissa) * scale : Double(mantissa) / scale
        return negative ? -magnitude : magnitude
    }

    private static func slow(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: field, as: UTF8.self))
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}

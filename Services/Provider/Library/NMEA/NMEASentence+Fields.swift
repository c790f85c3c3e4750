/// Typed field readers. They parse digits straight from the sentence bytes (no
/// String, no Foundation) because the decoder reads millions of fields a second;
/// each returns nil for a blank or malformed field so callers treat it as unknown.
extension NMEASentence {
    /// True when field `index` is absent or blank.
    func isBlank(_ index: Int) -> Bool {
        index >= fieldCount || range(index).isEmpty
    }

    /// The first byte of field `index` (status letters such as `A`, `V`, `N`).
    func letter(_ index: Int) -> UInt8? {
        guard index < fieldCount else { return nil }
        let r = range(index)
        return r.isEmpty ? nil : body[r.lowerBound]
    }

    /// A decimal number as an integer mantissa and a count of fraction digits,
    /// so degrees and minutes can be split exactly.
    func decimal(_ index: Int) -> (mantissa: Int64, scale: Int, negative: Bool)? {
        guard index < fieldCount else { return nil }
        let r = range(index)
        guard !r.isEmpty else { return nil }
        var i = r.lowerBound
        var negative = false
        if body[i] == 0x2D || body[i] == 0x2B { negative = body[i] == 0x2D; i += 1 }
        var mantissa: Int64 = 0
        var scale = 0
        var digits = 0
        var seenPoint = false
        while i < r.upperBound {
            let byte = body[i]
            if byte == 0x2E, !seenPoint {
                seenPoint = true
            } else if byte >= 0x30, byte <= 0x39 {
                digits += 1
                guard digits <= 18 else { return nil }
                mantissa = mantissa * 10 + Int64(byte - 0x30)
                if seenPoint { scale += 1 }
            } else {
                return nil
            }
            i += 1
        }
        return digits > 0 ? (mantissa, scale, negative) : nil
    }

    /// A decimal field as a Double.
    func double(_ index: Int) -> Double? {
        guard let d = decimal(index) else { return nil }
        let value = Double(d.mantissa) / Self.powersOfTen[d.scale]
        return d.negative ? -value : value
    }

    /// A whole-number field.
    func int(_ index: Int) -> Int? {
        guard let d = decimal(index), d.scale == 0 else {
            // "08.0" style counts: accept when the fraction is zero.
            guard let v = double(index), v == v.rounded(), abs(v) < 1e9 else { return nil }
            return Int(v)
        }
        return Int(d.negative ? -d.mantissa : d.mantissa)
    }

    /// `hhmmss[.sss]` as milliseconds since midnight (UTC), rounded to the millisecond.
    func timeOfDayMillis(_ index: Int) -> Int? {
        guard let d = decimal(index), !d.negative else { return nil }
        let unit = Int64(Self.powersOfTenInt[d.scale])
        let whole = d.mantissa / unit
        let fraction = d.mantissa % unit
        let hours = whole / 10000, minutes = whole / 100 % 100, seconds = whole % 100
        guard hours < 24, minutes < 60, seconds < 61 else { return nil }
        let fractionMillis = (fraction * 1000 + unit / 2) / unit
        return Int((hours * 3600 + minutes * 60 + seconds) * 1000 + fractionMillis)
    }

    /// `ddmm.mmmm` (or `dddmm.mmmm`) plus a hemisphere letter as signed degrees.
    /// `positive` / `negative` are the hemisphere letters, e.g. N and S.
    func coordinate(_ index: Int, hemisphere: Int, positive: UInt8, negative: UInt8) -> Double? {
        guard let d = decimal(index), !d.negative, let side = letter(hemisphere),
              side == positive || side == negative else { return nil }
        let unit = Int64(Self.powersOfTenInt[d.scale])
        let degrees = d.mantissa / (100 * unit)
        let minutesScaled = d.mantissa - degrees * 100 * unit
        guard minutesScaled < 60 * unit else { return nil }
        let value = Double(degrees) + Double(minutesScaled) / Self.powersOfTen[d.scale] / 60
        return side == negative ? -value : value
    }

    static let powersOfTen: [Double] = (0...18).map { p in (0..<p).reduce(1.0) { value, _ in value * 10 } }
    static let powersOfTenInt: [Int64] = (0...18).map { p in (0..<p).reduce(Int64(1)) { value, _ in value * 10 } }
}

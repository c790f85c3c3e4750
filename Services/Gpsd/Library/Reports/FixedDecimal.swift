/// Numbers written with a fixed count of decimals, as gpsd writes them (`%.9f` for a
/// latitude, `%.3f` for an error): the digits come from one rounded integer, so a value
/// never prints as `-0.000`, no locale can change the separator, and carries are exact.
public enum FixedDecimal {
    /// `value` rounded half away from zero to `decimals` places (0…9), e.g. 31.2304 → "31.230400000".
    /// Values must be finite and below 9·10⁹ in magnitude (every field written here is).
    public static func text(_ value: Double, decimals: Int) -> String {
        precondition(value.isFinite && (0...9).contains(decimals))
        let scale = powersOfTen[decimals]
        let scaled = (abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero)
        let units = Int64(scaled)
        var text = units != 0 && value < 0 ? "-" : ""
        text += String(units / scale)
        guard decimals > 0 else { return text }
        let fraction = String(units % scale)
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        return text
    }

    /// `value` as a whole number padded with zeros to `width` digits (NMEA fields such as `05`).
    public static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    static let powersOfTen: [Int64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]
}

/// Gives fixes without a receiver date an absolute time from a date the user supplied
/// (`--date YYYY-MM-DD`), rolling over to the next day when the time of day wraps.
/// Without a supplied date such fixes stay untimed and are skipped: we never invent a date.
public struct NMEADateFallback: Sendable {
    private var day: Int?
    private var lastTimeOfDay: Double?

    public init(date: NMEACivilDate?) {
        day = date?.daysSinceEpoch
    }

    public var isEnabled: Bool { day != nil }

    /// The fix's own time, or one built from the supplied date and its time of day.
    public mutating func time(for fix: NMEAFix) -> Double? {
        if let time = fix.time { return time }
        guard var current = day else { return nil }
        if let last = lastTimeOfDay, fix.timeOfDay < last - 43_200 { current += 1 }
        day = current
        lastTimeOfDay = fix.timeOfDay
        return Double(current) * 86_400 + fix.timeOfDay
    }

    /// Parses `YYYY-MM-DD`.
    public static func parse(_ text: String) -> NMEACivilDate? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
              let day = Int(parts[2]) else { return nil }
        return NMEACivilDate(year: year, month: month, day: day)
    }
}

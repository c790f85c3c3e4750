/// Gives fixes without a receiver date an absolute time from a date the user supplied
/// (`--date YYYY-MM-DD`), rolling over to the next day when the time of day wraps.
/// Without a supplied date such fixes stay untimed and are skipped: we never invent a date.
public struct NMEADateFallback: Sendable {
    private var days: MidnightRollover

    public init(date: NMEACivilDate?) {
        days = MidnightRollover(day: date?.daysSinceEpoch)
    }

    public var isEnabled: Bool { days.day != nil }

    /// The fix's own time, or one built from the supplied date and its time of day.
    public mutating func time(for fix: NMEAFix) -> Double? {
        if let time = fix.time { return time }
        guard days.day != nil, let day = days.follow(millis: MidnightRollover.millis(fix.timeOfDay)) else { return nil }
        return MidnightRollover.unixTime(day: day, timeOfDay: fix.timeOfDay)
    }

    /// Parses `YYYY-MM-DD`.
    public static func parse(_ text: String) -> NMEACivilDate? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
              let day = Int(parts[2]) else { return nil }
        return NMEACivilDate(year: year, month: month, day: day)
    }
}

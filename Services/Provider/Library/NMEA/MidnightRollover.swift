/// NMEA times of day carry no date. Receivers stamp epochs in order, so a time of day more
/// than half a day earlier than the one before means midnight passed, not a late fix. The
/// decoder (days from date sentences) and `NMEADateFallback` (a date the user supplied) both
/// follow the day by this one rule, and the decoder's order check allows the same jump.
public struct MidnightRollover: Sendable {
    /// A jump back by more than this (milliseconds) crosses midnight.
    static let halfDayMillis = 43_200_000

    /// The UTC day (days since 1970-01-01) of the latest time of day; nil until one is known.
    public private(set) var day: Int?
    private var lastMillis: Int?

    public init(day: Int? = nil) {
        self.day = day
    }

    /// Follows the next time of day (milliseconds since midnight): `date` (days since
    /// 1970-01-01, from a date sentence) sets the day, otherwise a jump back by more than half
    /// a day moves it on by one. Returns the day the time of day falls on (nil while unknown).
    @discardableResult
    public mutating func follow(millis: Int, date: Int? = nil) -> Int? {
        if let date {
            day = date
        } else if let current = day, let last = lastMillis, Self.crossesMidnight(from: last, to: millis) {
            day = current + 1
        }
        lastMillis = millis
        return day
    }

    /// Whether going from one time of day to the next (milliseconds since midnight) crossed midnight.
    static func crossesMidnight(from earlier: Int, to later: Int) -> Bool {
        later < earlier - halfDayMillis
    }

    /// The same for times of day in seconds, as `NMEAFix.timeOfDay` holds them (each is a whole
    /// number of milliseconds, so the rule reads them back exactly).
    static func crossesMidnight(fromSeconds earlier: Double, toSeconds later: Double) -> Bool {
        crossesMidnight(from: millis(earlier), to: millis(later))
    }

    static func millis(_ seconds: Double) -> Int {
        Int((seconds * 1000).rounded())
    }

    /// Unix seconds of a time of day (seconds since midnight) on a UTC day.
    static func unixTime(day: Int, timeOfDay: Double) -> Double {
        Double(day) * 86_400 + timeOfDay
    }
}

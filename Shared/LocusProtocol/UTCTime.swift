import Glibc

/// A Unix time split into UTC calendar fields at millisecond precision: the resolution
/// gpsd's JSON uses ("May have a fractional part of up to .001sec precision") and the
/// NMEA sentences locus-gpsd writes carry. The one ISO 8601 writer of the stack (gpsd's
/// `time`, the notifier's `{time}`): by hand, since making an `ISO8601DateFormatter` per
/// notification was a measurable share of the notifier's event path.
public struct UTCTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    /// Rounds `unixSeconds` to the nearest millisecond first, so 12.9996 s becomes 13.000,
    /// never 12.1000.
    public init(unixSeconds: Double) {
        let totalMilliseconds = Int64((unixSeconds * 1000).rounded())
        var seconds = time_t(totalMilliseconds >= 0 ? totalMilliseconds / 1000 : (totalMilliseconds - 999) / 1000)
        millisecond = Int(totalMilliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        year = Int(parts.tm_year) + 1900
        month = Int(parts.tm_mon) + 1
        day = Int(parts.tm_mday)
        hour = Int(parts.tm_hour)
        minute = Int(parts.tm_min)
        second = Int(parts.tm_sec)
    }

    /// The whole second that holds `unixSeconds` (rounded down, never up to the next second).
    public init(wholeSecondOf unixSeconds: Double) {
        self.init(unixSeconds: unixSeconds.rounded(.down))
    }

    /// `2026-05-14T09:30:01.250Z`, gpsd's `time` field.
    public var iso8601: String {
        iso8601Seconds.dropLast() + "." + Self.padded(millisecond, width: 3) + "Z"
    }

    /// `2026-05-14T09:30:01Z`, without the milliseconds: the notifier's `{time}`.
    public var iso8601Seconds: String {
        "\(Self.padded(year, width: 4))-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
    }

    /// `093001.250`, the NMEA time of day (hhmmss.sss).
    public var nmeaTimeOfDay: String {
        "\(two(hour))\(two(minute))\(two(second)).\(Self.padded(millisecond, width: 3))"
    }

    /// `140526`, the NMEA date (ddmmyy) of RMC.
    public var nmeaDate: String {
        "\(two(day))\(two(month))\(two(year % 100))"
    }

    private func two(_ value: Int) -> String { Self.padded(value, width: 2) }

    /// `value` padded with zeros to `width` digits.
    private static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

import Glibc

/// A Unix time split into UTC calendar fields at millisecond precision: the resolution
/// gpsd's JSON uses ("May have a fractional part of up to .001sec precision") and the
/// NMEA sentences written here carry.
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

    /// `2026-05-14T09:30:01.250Z`, gpsd's `time` field.
    public var iso8601: String {
        "\(FixedDecimal.padded(year, width: 4))-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))."
            + FixedDecimal.padded(millisecond, width: 3) + "Z"
    }

    /// `093001.250`, the NMEA time of day (hhmmss.sss).
    public var nmeaTimeOfDay: String {
        "\(two(hour))\(two(minute))\(two(second)).\(FixedDecimal.padded(millisecond, width: 3))"
    }

    /// `140526`, the NMEA date (ddmmyy) of RMC.
    public var nmeaDate: String {
        "\(two(day))\(two(month))\(two(year % 100))"
    }

    private func two(_ value: Int) -> String { FixedDecimal.padded(value, width: 2) }
}

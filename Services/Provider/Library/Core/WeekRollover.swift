/// Repairs the GPS week-rollover bug of live receivers. GPS counts weeks in 10 bits, so a
/// receiver whose firmware anchors the count too early dates its fixes exactly 1024 weeks
/// (about 19.6 years) — or a multiple — in the past, with the right time of day and weekday;
/// many older units have done so since April 2019. gpsd repairs such dates; so does this.
///
/// A live fix dated 1024·k weeks before the system clock, within `toleranceSeconds`, is moved
/// forward by those weeks. File replays are not repaired by default: a log keeps its own
/// dates (`# Date:`). The correction is counted, and its first use is reported once.
public struct WeekRollover: Sendable, Equatable {
    /// `--rollover`: `auto` repairs live sources only; `correct` and `keep` force either way.
    public enum Policy: String, Sendable, CaseIterable {
        case auto, correct, keep

        /// Whether a source repairs dates under this policy.
        public func repairs(live: Bool) -> Bool {
            switch self {
            case .auto: return live
            case .correct: return true
            case .keep: return false
            }
        }
    }

    /// 1024 weeks in seconds.
    public static let periodSeconds = 1024.0 * 7 * 86_400

    public let enabled: Bool
    /// How far a repaired time may still be from the system clock (receiver and host clocks,
    /// latency).
    public var toleranceSeconds: Double
    /// Weeks added to the dates found wrong, once one was.
    public private(set) var weeks: Int?
    /// Fixes repaired.
    public private(set) var repaired = 0

    public init(enabled: Bool, toleranceSeconds: Double = 86_400) {
        self.enabled = enabled
        self.toleranceSeconds = toleranceSeconds
    }

    /// The fix time `t` repaired against the system clock `now`; `first` is true for the first
    /// repair (the one to report).
    public mutating func repair(_ t: Double, now: Double) -> (t: Double, first: Bool) {
        guard enabled, t.isFinite, now.isFinite else { return (t, false) }
        let behind = now - t
        let periods = (behind / Self.periodSeconds).rounded()
        guard periods >= 1, abs(behind - periods * Self.periodSeconds) <= toleranceSeconds else { return (t, false) }
        repaired += 1
        let first = weeks == nil
        weeks = Int(periods) * 1024
        return (t + periods * Self.periodSeconds, first)
    }

    /// What a report says: the weeks and the dates before and after.
    public static func describe(weeks: Int, from t: Double, to repaired: Double) -> String {
        "receiver dates fixes \(weeks) weeks in the past (\(Self.date(t)) for \(Self.date(repaired))): "
            + "the GPS week-rollover bug; adding \(weeks) weeks to its fixes (--rollover keep leaves them)"
    }

    /// `YYYY-MM-DD` of a Unix time (UTC).
    static func date(_ t: Double) -> String {
        let days = Int((t / 86_400).rounded(.down))
        // Civil date from days since 1970-01-01 (the inverse of NMEACivilDate.daysSinceEpoch).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}

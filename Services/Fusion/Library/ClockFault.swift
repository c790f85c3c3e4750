/// A fix time too far from its arrival to be believed: a receiver with the GPS week-rollover
/// bug (dates 1024 weeks back), a clock never set (1970), a clock far ahead. Such a fix is not
/// dropped and not trusted: fusion re-times it by its arrival on the device's clock and says so
/// (`timeSource: arrival`), and reports the fault.
public struct ClockFault: Sendable, Equatable {
    /// Fix time minus arrival, seconds (negative: behind).
    public var leadSeconds: Double

    /// 1024 GPS weeks, the period of the week-rollover bug.
    public static let rolloverSeconds = 1024.0 * 7 * 86_400

    /// The fault of a fix stamped `t` arriving at `arrival`, or nil when the time is plausible:
    /// at most `behindSeconds` behind and `aheadSeconds` ahead.
    public init?(t: Double, arrival: Double, behindSeconds: Double, aheadSeconds: Double) {
        let lead = t - arrival
        guard lead > aheadSeconds || -lead > behindSeconds else { return nil }
        leadSeconds = lead
    }

    /// Multiples of 1024 weeks the time is behind, when that explains it within a day.
    public var rolloverWeeks: Int? {
        let periods = (-leadSeconds / Self.rolloverSeconds).rounded()
        guard periods >= 1, abs(-leadSeconds - periods * Self.rolloverSeconds) <= 86_400 else { return nil }
        return Int(periods) * 1024
    }

    /// "… s behind its arrival (1024 weeks: a GPS week rollover?)" for a report.
    public var description: String {
        let seconds = abs(leadSeconds)
        let size = seconds >= 172_800 ? "\(Int(seconds / 86_400)) days" : "\(Int(seconds)) s"
        var text = "\(size) \(leadSeconds < 0 ? "behind" : "ahead of") its arrival"
        if let weeks = rolloverWeeks { text += " (\(weeks) weeks: a receiver with the GPS week-rollover bug)" }
        return text
    }
}

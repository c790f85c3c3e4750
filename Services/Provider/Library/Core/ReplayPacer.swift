/// Paces a replay by the fixes' own times: fix *i* is released at
/// `start + (t_i − t_0) / speed` on the wall clock, or at once with `--rate max`.
/// Times stay the file's; only the release is delayed.
///
/// With a `liveSince` wall time the replay behaves like a live receiver whose route began
/// at that moment: `start` is `liveSince` rather than the first release, and fixes whose
/// moment has already passed are skipped (`isPast`). A restarted provider then continues
/// where the route is now instead of driving it again from the beginning.
public struct ReplayPacer: Sendable {
    public var speed: Double
    public var asFastAsPossible: Bool
    /// Wall time (Unix seconds) at which the route's first fix was due, for live replays.
    public var liveSince: Double?
    /// How late a fix may be before a live replay skips it: covers a slow start, not an outage.
    public var lateToleranceSeconds = 0.5
    private var anchor: (fixTime: Double, wallTime: Double)?

    public init(speed: Double = 1, asFastAsPossible: Bool = false, liveSince: Double? = nil) {
        self.speed = speed > 0 ? speed : 1
        self.asFastAsPossible = asFastAsPossible
        self.liveSince = liveSince
    }

    /// Seconds to wait before releasing a fix of time `t`, given the wall clock `now`.
    /// A jump backwards in time re-anchors rather than releasing everything at once.
    public mutating func delay(forFixTime t: Double, now: Double) -> Double {
        if asFastAsPossible { return 0 }
        guard let anchor, t >= anchor.fixTime else {
            anchor = (t, liveSince ?? now)
            return max(0, (liveSince ?? now) - now)
        }
        return max(0, anchor.wallTime + (t - anchor.fixTime) / speed - now)
    }

    /// Whether a live replay should skip the fix of time `t`: its moment passed more than
    /// `lateToleranceSeconds` ago (the provider was not running then). Always false otherwise.
    public mutating func isPast(forFixTime t: Double, now: Double) -> Bool {
        guard let liveSince, !asFastAsPossible else { return false }
        if anchor == nil { anchor = (t, liveSince) }
        guard let anchor, t >= anchor.fixTime else { return false }
        return anchor.wallTime + (t - anchor.fixTime) / speed < now - lateToleranceSeconds
    }
}

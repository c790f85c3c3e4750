/// Paces a replay by the fixes' own times: fix *i* is released at
/// `start + (t_i − t_0) / speed` on the wall clock, or at once with `--rate max`.
/// Times stay the file's; only the release is delayed.
public struct ReplayPacer: Sendable {
    public var speed: Double
    public var asFastAsPossible: Bool
    private var anchor: (fixTime: Double, wallTime: Double)?

    public init(speed: Double = 1, asFastAsPossible: Bool = false) {
        self.speed = speed > 0 ? speed : 1
        self.asFastAsPossible = asFastAsPossible
    }

    /// Seconds to wait before releasing a fix of time `t`, given the wall clock `now`.
    /// A jump backwards in time re-anchors rather than releasing everything at once.
    public mutating func delay(forFixTime t: Double, now: Double) -> Double {
        if asFastAsPossible { return 0 }
        guard let anchor, t >= anchor.fixTime else {
            anchor = (t, now)
            return 0
        }
        return max(0, anchor.wallTime + (t - anchor.fixTime) / speed - now)
    }
}

public import LocusProtocol

/// Holds back a change of state until it has lasted `seconds` of fix time, every fix in
/// that window agreeing. One contrary or uncertain fix restarts the wait, which is what
/// keeps a device jittering across a boundary from producing a burst of transitions.
public struct Debounce: Sendable, Equatable {
    /// Fix time of the first fix of the current run supporting `candidate`.
    public private(set) var sinceFixTime: Double? {
        get { since.value }
        set { since.value = newValue }
    }
    private var since: PackedOptionalDouble
    /// The state waiting to be confirmed (`.inside` or `.outside`), if any.
    public private(set) var candidate: RegionState?

    public init(candidate: RegionState? = nil, sinceFixTime: Double? = nil) {
        self.candidate = candidate
        self.since = PackedOptionalDouble(sinceFixTime)
    }

    /// Feeds one fix's vote (`Hysteresis.vote`: `.unknown` when uncertain) against the
    /// committed state; returns the new state once it has held for `seconds`.
    public mutating func observe(vote: RegionState, committed: RegionState, fixTime: Double, seconds: Double) -> RegionState? {
        guard vote != .unknown, vote != committed else {
            reset()
            return nil
        }
        if candidate != vote || sinceFixTime == nil {
            candidate = vote
            sinceFixTime = fixTime
        }
        guard let since = sinceFixTime, fixTime - since >= seconds else { return nil }
        reset()
        return vote
    }

    public mutating func reset() {
        candidate = nil
        sinceFixTime = nil
    }
}

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
    /// The state waiting to be confirmed, if any.
    public private(set) var candidate: Bool?

    public init(candidate: Bool? = nil, sinceFixTime: Double? = nil) {
        self.candidate = candidate
        self.since = PackedOptionalDouble(sinceFixTime)
    }

    /// Feeds one fix's vote (`true` inside, `false` outside, nil uncertain) against the
    /// committed state; returns the new state once it has held for `seconds`.
    public mutating func observe(vote: Bool?, committed: Bool, fixTime: Double, seconds: Double) -> Bool? {
        guard let vote, vote != committed else {
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

import LocusProtocol

/// What one fix decides for one region: the track after it, the events it reports and
/// whether the change must be stored. It reads only the track, the region's essentials and
/// the fix's signed distance, so the service around it routes and nothing more: it finds
/// the candidates, measures the distances, writes the rows and sends the events.
///
/// Inside and outside are `RegionState` all the way: the fix's vote (`.unknown` within the
/// margin, where the fix cannot tell), the pending change and the committed state.
struct RegionDecision {
    /// One event to send, as `GeofenceLogic.emit` words it.
    struct Report: Equatable {
        let kind: RegionEventKind
        let state: RegionState
        let cause: RegionEventCause
        let crossingTime: Double?
    }

    /// The track after this fix.
    private(set) var track: RegionTrack
    /// An entry or exit, or a scheduled region's announced first state.
    private(set) var change: Report?
    /// The stay inside reached the region's dwell time at this fix.
    private(set) var dwell: Report?

    /// `announces`: the first decision is reported as a `state` event (a scheduled region's
    /// hours began again) instead of silently. `recovering`: the device's tracks come from
    /// before a restart, so a state that differs now was missed and is reported at once.
    init(track: RegionTrack, region: RegionEssentials, signedDistance distance: Double, marginMeters: Double, fixTime: Double,
         recovering: Bool, announces: Bool, debounceSeconds: Double) {
        self.track = track
        let vote = Hysteresis.vote(signedDistanceMeters: distance, marginMeters: marginMeters)
        if let lastTime = track.lastFixTime, let lastDistance = track.lastSignedDistanceMeters,
           let crossing = CrossingInterpolation.time(from: lastTime, signedDistance: lastDistance, to: fixTime, signedDistance: distance) {
            self.track.crossingTime = crossing
        }
        self.track.lastFixTime = fixTime
        self.track.lastSignedDistanceMeters = distance
        switch track.state {
        case .unknown:
            // The first decision is silent: Core Location reports no entry for a region
            // registered while the device is already inside.
            guard vote != .unknown else { return }
            decideFirst(vote, at: fixTime, announces: announces)
        case .inside, .outside:
            decideChange(vote, region: region, at: fixTime, recovering: recovering, debounceSeconds: debounceSeconds)
        }
        if self.track.state == .inside, self.track.dwell.shouldFire(fixTime: fixTime, dwellSeconds: region.dwellSeconds) {
            dwell = Report(kind: .dwell, state: .inside, cause: self.track.entryCause, crossingTime: nil)
        }
    }

    private mutating func decideFirst(_ vote: RegionState, at fixTime: Double, announces: Bool) {
        track.state = vote
        track.entryCause = announces ? .activated : .initial
        if vote == .inside { track.dwell.start(at: fixTime) }
        track.debounce.reset()
        if announces { change = Report(kind: .state, state: vote, cause: .activated, crossingTime: nil) }
    }

    private mutating func decideChange(_ vote: RegionState, region: RegionEssentials, at fixTime: Double, recovering: Bool,
                                       debounceSeconds: Double) {
        let changed: RegionState?
        let cause: RegionEventCause
        if recovering, vote != .unknown, vote != track.state {
            // Missed while the service was down: report it once, now.
            changed = vote
            cause = .recovered
            track.crossingTime = nil
        } else {
            changed = track.debounce.observe(vote: vote, committed: track.state, fixTime: fixTime, seconds: debounceSeconds)
            cause = .crossing
        }
        guard let changed else { return }
        let inside = changed == .inside
        track.debounce.reset()
        track.state = changed
        track.entryCause = cause
        if inside { track.dwell.start(at: track.crossingTime ?? fixTime) } else { track.dwell.stop() }
        if inside ? region.notifyOnEntry : region.notifyOnExit {
            change = Report(kind: inside ? .enter : .exit, state: changed, cause: cause,
                            crossingTime: cause == .crossing ? track.crossingTime : nil)
        }
        track.crossingTime = nil
    }

    /// Settled outside with no change pending: a far region's track can go, its state is implied.
    var isSettledOutside: Bool { track.state == .outside && track.debounce.candidate == nil }

    /// Whether the committed state or dwell moved from `before` in a way a restart must
    /// find. A first "outside" needs no row: after a restart a region without one is outside
    /// for a device checked through its generation, which the same batch stores.
    func isDurable(from before: RegionTrack) -> Bool {
        guard track.state != .unknown, !(before.state == .unknown && track.state == .outside) else { return false }
        return track.state != before.state || track.dwell != before.dwell
    }
}

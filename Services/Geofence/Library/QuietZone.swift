import LocusGeo

/// The disc around a device's last fully evaluated fix inside which its next fixes cannot
/// change anything: no state, no pending change, no dwell, no crossing estimate. A fix in
/// it only becomes the device's last fix; the per-fix work (index lookup, every nearby
/// region's distance and decision) is skipped. Under a fleet most fixes land in one, since
/// a device moves a few metres between fixes and boundaries are usually farther.
///
/// Why skipping is exact: the signed distance to a circle changes by at most the distance
/// moved (triangle inequality on the geodesic), so within `reach` of the anchor no circle's
/// distance changes sign (no crossing to interpolate) and a settled region's vote stays its
/// committed state or uncertain (the state holds, no change starts). A region with a change
/// pending keeps voting for it while the fix stays `marginMeters` beyond the boundary,
/// which `marginedReach` checks with the new fix's own margin; its debounce and any dwell
/// fire on fix time, so the zone ends at `until`. Regions the index did not return lie
/// beyond its reach, which bounds `reach` too. Any change to the regions ends every zone
/// (`revision`). A polygon's signed distance (tangent-plane metres) moves by at most the
/// distance moved too, within millimetres over the zone's 2 km; where it is a bound
/// (`PolygonIndex`) it is smaller than the truth, which only shrinks the zone. Devices near
/// an undecided region or a boundary they sit on get no zone and are evaluated in full.
struct QuietZone: Sendable, Equatable {
    /// The fix the zone was computed at.
    let anchor: Coordinate
    /// Metres from the anchor within which every boundary distance keeps its sign.
    let reach: Double
    /// Metres, less the fix's margin, within which a pending change keeps its vote.
    let marginedReach: Double
    /// Fix time from which a pending change or a dwell may fire.
    let until: Double
    /// `RegionStore.revision` at the anchor.
    let revision: Int

    /// Largest reach kept: bounds `FastDistance`'s error (below 3 mm at 2 km up to 85°).
    static let maximumReachMeters = 2_000.0
    /// Taken off every reach for the fast distance's and the distance estimates' errors.
    static let slackMeters = 0.01
    /// Taken off every deadline, so that rounding in `since + seconds` never lets through a
    /// fix whose `fixTime - since` already reaches `seconds`.
    static let slackSeconds = 0.001

    /// True when a fix at `point`, time `t`, with confidence margin `marginMeters` changes nothing.
    @inline(__always)
    func admits(_ point: Coordinate, t: Double, marginMeters: Double, revision: Int) -> Bool {
        guard t < until, revision == self.revision else { return false }
        let moved = FastDistance.meters(anchor, point)
        return moved <= reach && moved + marginMeters <= marginedReach
    }
}

/// Gathers, region by region during a full evaluation, what the device's zone allows.
struct QuietZoneBuilder {
    private var eligible = true
    private var reach = Double.infinity
    private var marginedReach = Double.infinity
    private var until = Double.infinity

    /// A region whose hours may begin or end: its next fixes must be looked at.
    mutating func exclude() { eligible = false }

    /// One region after its decision: `distance` is the fix's signed distance to it.
    @inline(__always)
    mutating func observe(_ track: RegionTrack, region: RegionEssentials, distance: Double, debounceSeconds: Double) {
        guard eligible, !region.scheduled else {
            eligible = false
            return
        }
        // A polygon's distance is a lower bound of its size where it is not exact, which
        // only shrinks the zone.
        guard track.state != .unknown else {
            eligible = false
            return
        }
        let inside = track.state == .inside
        if let candidate = track.debounce.candidate {
            // The vote is the candidate now; it stays so while the fix clears the margin.
            guard candidate != track.state, let since = track.debounce.sinceFixTime else {
                eligible = false
                return
            }
            marginedReach = min(marginedReach, abs(distance))
            until = min(until, since + debounceSeconds - QuietZone.slackSeconds)
        } else {
            // Settled: the boundary must lie on the committed side's far edge, not be straddled.
            guard inside ? distance < 0 : distance > 0 else {
                eligible = false
                return
            }
            reach = min(reach, abs(distance))
        }
        if inside, let enteredAt = track.dwell.enteredAt, !track.dwell.fired, let dwell = region.dwellSeconds {
            until = min(until, enteredAt + dwell - QuietZone.slackSeconds)
        }
    }

    /// The zone, or nil when some region rules it out. `farMeters`: every region the index
    /// did not return lies at least this far from `anchor`.
    func zone(anchor: Coordinate, farMeters: Double, revision: Int) -> QuietZone? {
        guard eligible, abs(anchor.lat) <= 85 else { return nil }
        let reach = min(self.reach, farMeters, QuietZone.maximumReachMeters) - QuietZone.slackMeters
        let marginedReach = min(self.marginedReach, QuietZone.maximumReachMeters) - QuietZone.slackMeters
        guard reach > 0, marginedReach > 0 else { return nil }
        return QuietZone(anchor: anchor, reach: reach, marginedReach: marginedReach, until: until, revision: revision)
    }
}

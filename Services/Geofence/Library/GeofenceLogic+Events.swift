import LocusService
import LocusProtocol
import LocusGeo

/// `region.event.<owner>`: what the decisions report, worded for the region's owner.
extension GeofenceLogic {
    /// An owner whose authorization dropped gets no events (they are counted as suppressed);
    /// its states keep tracking, so restoring it does not produce stale transitions.
    mutating func admitsEvent(of owner: String) -> Bool {
        guard gate.allowsMonitoring(owner) else {
            counters.eventsSuppressed += 1
            return false
        }
        counters.events += 1
        return true
    }

    /// Sends `report` for `device`, with the fix that decided it. A corridor's event also
    /// says where along the route and how far off it the fix was, and an exit through one of
    /// its sides adds a `deviated` event.
    mutating func emit(_ report: RegionDecision.Report, of region: MonitoredRegion, device: String, fix: FixRef,
                       into out: inout [Outbound]) {
        let owner = region.key.owner
        guard admitsEvent(of: owner) else { return }
        var event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: report.kind, state: report.state,
                                cause: report.cause, location: fix, crossingTime: report.crossingTime)
        guard case .corridor(let corridor) = region.shape else {
            out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
            return
        }
        let nearest = corridor.nearest(Coordinate(lat: fix.lat, lon: fix.lon))
        event.progress = nearest.progressMeters
        event.offRoute = nearest.distanceMeters
        out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
        if report.kind == .exit, nearest.progressMeters > 0, nearest.progressMeters < corridor.lengthMeters {
            // Left through a side, not past either end of the route.
            counters.events += 1
            event.event = .deviated
            out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
        }
    }
}

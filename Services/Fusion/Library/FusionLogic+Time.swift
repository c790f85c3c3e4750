import LocusService
import LocusGeo
import LocusProtocol

/// The time side of fusion: fixes whose clock cannot be believed, and real fixes that arrive
/// after newer ones (see `FixTimeline`).
extension FusionLogic {
    /// Re-times a fix whose time is implausibly far from its arrival by the arrival, on the
    /// device's clock (its usual offset removed), and reports the fault — at most once per
    /// `clockFaultReportIntervalSeconds` per device. Returns whether it re-timed.
    mutating func retimeIfFaulty(_ t: inout Double, device: String, state: inout DeviceState, topic: String, message: Message,
                                 now: Double, out: inout [Outbound]) -> Bool {
        guard let fault = ClockFault(t: t, arrival: now, behindSeconds: configuration.clockFaultBehindSeconds,
                                     aheadSeconds: configuration.maximumFutureSeconds) else { return false }
        counters.add("clockFaults")
        t = state.timeline.clock.deviceTime(at: now)
        if now - state.timeline.lastClockFaultReport >= configuration.clockFaultReportIntervalSeconds {
            state.timeline.lastClockFaultReport = now
            out.append(reject("clockFault", "fix for \(device) is dated \(fault.description); re-timed by its arrival "
                              + "(timeSource: arrival)", topic: topic, message: message, now: now))
        }
        return true
    }

    /// A real fix older than its device's newest: history. It is published on
    /// `location.late.<device>` (the map's track, the geofence's late crossings) and may
    /// lengthen a visit or be a significant change, but the estimate of where the device is now
    /// does not rewind for it. Returns what to publish and whether the fix passed the screen.
    mutating func receiveLate(_ location: Location, coordinate: Coordinate, hacc: Double, t: Double, retimed: Bool, device: String,
                              state: inout DeviceState, topic: String, message: Message, now: Double) -> ([Outbound], Bool) {
        if let rejection = state.screen.check(coordinate, hacc: location.hacc, t: t, stream: .late) {
            return (report(rejection, device: device, state: &state, topic: topic, message: message, now: now), false)
        }
        counters.add("lateFixes")
        var late = location
        late.device = device
        late.hacc = hacc
        late.tier = AccuracyTier(haccMeters: hacc).rawValue
        late.timeSource = retimed ? "arrival" : nil
        var out = [Outbound(topic: Topic.locationLate(device), body: .location(late), t: t)]
        if let visit = state.visits.observeLate(coordinate, haccMeters: hacc, t: t) {
            let body = Visit(device: device, lat: visit.center.lat, lon: visit.center.lon, hacc: visit.haccMeters,
                             arrival: visit.arrival, departure: visit.departure)
            out.append(Outbound(topic: Topic.visit(device), body: .visit(body), t: t))
        }
        if state.significant.observe(coordinate, t: t) {
            out.append(Outbound(topic: Topic.locationSignificant(device), body: .location(late), t: t))
        }
        return (out, true)
    }

    /// Counts a screen's rejection and reports it; a flood once per `floodReportIntervalSeconds` of arrival.
    mutating func report(_ rejection: FixScreen.Rejection, device: String, state: inout DeviceState, topic: String, message: Message,
                         now: Double) -> [Outbound] {
        counters.add("rejected." + rejection.code)
        if case .flood = rejection {
            guard now - state.lastFloodReport >= configuration.floodReportIntervalSeconds else { return [] }
            state.lastFloodReport = now
        }
        return [reject(rejection.code, describe(rejection, device: device), topic: topic, message: message, now: now)]
    }
}

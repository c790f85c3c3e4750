import LocusService
import LocusGeo
public import LocusProtocol

/// Region crossings found in a device's late fixes: history uploaded after newer fixes (a
/// phone back online sending what it buffered), on `location.late.<device>` or a fused fix
/// older than the device's newest. They are reported with `cause: late` and the fix that
/// showed them, and they never change the committed state: that already follows the newer fixes.
///
/// A run of late fixes is replayed against its own per-region verdict: the run's first clear
/// verdict sets it silently (what came before it is not known: the committed state may
/// follow fixes newer than the whole run), and each later clear verdict that differs is a
/// crossing (the hysteresis margin decides, no debounce: the fixes are already past). A
/// current fix ends the run.
public enum LateCrossings {
    /// What the late fixes said about one region so far: `.inside` or `.outside`.
    public struct Verdict: Sendable, Equatable {
        public var state: RegionState
        public var t: Double
        public var signedDistanceMeters: Double
    }
}

extension GeofenceLogic {
    mutating func processLate(_ location: Location, t: Double, number: Int, into out: inout [Outbound]) {
        counters.lateFixes += 1
        let device = location.device
        let point = Coordinate(lat: location.lat, lon: location.lon)
        let fix = FixRef(lat: location.lat, lon: location.lon, hacc: location.hacc, t: t)
        let margin = hysteresis.marginMeters(hacc: location.hacc)
        var history = lateHistory[number] ?? [:]
        scratch.removeAll(keepingCapacity: true)
        _ = store.candidateSlots(near: point, marginMeters: margin, into: &scratch)
        for slot in history.keys where !scratch.contains(slot) { scratch.append(slot) }
        let slots = scratch
        for slot in slots {
            let region = store.essentials(inSlot: slot)
            let filed = region.isOccupied ? store.filed(inSlot: slot) : nil
            guard let filed, region.watchesEveryDevice || filed.monitored.watches(device) else {
                history[slot] = nil
                continue
            }
            let distance = store.signedDistance(region, slot: slot, point, marginMeters: margin)
            let vote = Hysteresis.vote(signedDistanceMeters: distance, marginMeters: margin)
            guard vote != .unknown else { continue }
            let before = history[slot]
            history[slot] = LateCrossings.Verdict(state: vote, t: t, signedDistanceMeters: distance)
            guard let before, vote != before.state, vote == .inside ? region.notifyOnEntry : region.notifyOnExit else { continue }
            let crossing = CrossingInterpolation.time(from: before.t, signedDistance: before.signedDistanceMeters, to: t,
                                                      signedDistance: distance)
            let report = RegionDecision.Report(kind: vote == .inside ? .enter : .exit, state: vote, cause: .late, crossingTime: crossing)
            emit(report, of: filed.monitored, device: device, fix: fix, into: &out)
        }
        lateHistory[number] = history
    }
}

import LocusService
import LocusProtocol
import LocusGeo
import LocusStore

/// `location.fused.<device>`: each fix is routed to the regions it may concern, and
/// `RegionDecision` decides each of them.
extension GeofenceLogic {
    mutating func process(_ location: Location, t: Double, into out: inout [Outbound]) {
        let device = location.device
        let point = Coordinate(lat: location.lat, lon: location.lon)
        let fix = FixRef(lat: location.lat, lon: location.lon, hacc: location.hacc, t: t)
        let number = deviceNumber(device)
        if trackers[number].recovering, keepsLastFixes, let last = trackers[number].lastFix, t <= last.t {
            // At or before the last fix the store kept: handled before a restart and
            // delivered again (its effects and events are in the stored record).
            counters.staleFixes += 1
            return
        }
        if let last = trackers[number].lastFix, t < last.t {
            // Out of order: time logic only moves forward; an older fix is history.
            processLate(location, t: t, number: number, into: &out)
            return
        }
        if lateHistory[number] != nil { lateHistory[number] = nil }  // a current fix ends a run of late ones
        let margin = hysteresis.marginMeters(hacc: location.hacc)
        if let zone = trackers[number].quiet, zone.admits(point, t: t, marginMeters: margin, revision: store.revision) {
            counters.quietFixes += 1
            trackers[number].lastFix = fix
            if keepsLastFixes { pending.lastFixes[device] = fix }
            trackers[number].tracksLagLastFix = true
            return
        }
        evaluate(device: device, number: number, point: point, fix: fix, marginMeters: margin, into: &out)
    }

    /// Decides every region near the fix and every region the device has a track for. The
    /// device's tracker is read and written in place, one access at a time.
    private mutating func evaluate(device: String, number: Int, point: Coordinate, fix: FixRef, marginMeters margin: Double,
                                   into out: inout [Outbound]) {
        scratch.removeAll(keepingCapacity: true)
        let farMeters = store.candidateSlots(near: point, marginMeters: margin, into: &scratch)
        let nearCount = scratch.count
        for position in 0..<trackers[number].tracks.count {
            let slot = trackers[number].tracks.slot(at: position)
            if !scratch[..<nearCount].contains(slot) { scratch.append(slot) }
        }
        // Every candidate's essentials first, in a loop of independent loads, so their cache
        // misses overlap instead of each waiting for the previous candidate's work.
        gathered.removeAll(keepingCapacity: true)
        for slot in scratch { gathered.append(store.essentials(inSlot: slot)) }
        let previous = trackers[number].lastFix
        let previousMargin = previous.map { hysteresis.marginMeters(hacc: $0.hacc) } ?? 0
        let lagging = trackers[number].tracksLagLastFix
        let recovering = trackers[number].recovering
        var quiet = QuietZoneBuilder()
        for (position, slot) in scratch.enumerated() {
            // The slot's essentials decide most candidates; the filed region is read only
            // for a device list, a polygon, an event or a row (see `RegionEssentials`), and
            // at most once.
            var region = gathered[position]
            var filed = region.isOccupied && !region.watchesEveryDevice ? store.filed(inSlot: slot) : nil
            guard region.isOccupied, filed?.monitored.watches(device) ?? true else {
                trackers[number].tracks[slot] = nil
                continue
            }
            if region.scheduled {
                // Outside its hours a region is not evaluated (its tracks wait); a new
                // window gives it a new generation, so states start over and are reported.
                switch store.scheduleStep(slot: slot, t: fix.t) {
                case .inactive:
                    quiet.exclude()
                    continue
                case .active: break
                case .activated(let monitored):
                    pending.upsertRegion(PersistedRegion(owner: monitored.key.owner, region: monitored.region, generation: monitored.generation))
                    region = store.essentials(inSlot: slot)
                    filed = store.filed(inSlot: slot)
                }
            }
            let generation = region.generation
            let stored = trackers[number].tracks.position(of: slot)
            var track = stored.map { trackers[number].tracks.track(at: $0) }
                ?? RegionTrack(generation: generation, state: trackers[number].state(slot: slot, generation: generation))
            if track.generation != generation { track = RegionTrack(generation: generation, state: .unknown) }
            if track.lastSignedDistanceMeters == nil || lagging, let previous {
                track.lastSignedDistanceMeters = store.signedDistance(region, slot: slot, Coordinate(lat: previous.lat, lon: previous.lon),
                                                                      marginMeters: previousMargin)
                track.lastFixTime = previous.t
            }
            var distance = store.signedDistance(region, slot: slot, point, marginMeters: margin)
            if region.circle == nil, let last = track.lastSignedDistanceMeters, (last < 0) != (distance < 0) {
                // A polygon answers far from its boundary with a bound; a crossing is
                // interpolated from the two fixes' true distances.
                distance = store.signedDistance(region, slot: slot, point, marginMeters: .infinity)
                if let previous, previous.t == track.lastFixTime {
                    track.lastSignedDistanceMeters = store.signedDistance(region, slot: slot, Coordinate(lat: previous.lat, lon: previous.lon),
                                                                          marginMeters: .infinity)
                }
            }
            let decision = RegionDecision(track: track, region: region, signedDistance: distance, marginMeters: margin, fixTime: fix.t,
                                          recovering: recovering,
                                          announces: region.scheduled && store.announces(slot: slot, generation: generation),
                                          debounceSeconds: configuration.debounceSeconds)
            quiet.observe(decision.track, region: region, distance: distance, debounceSeconds: configuration.debounceSeconds)
            if decision.isSettledOutside && position >= nearCount {
                trackers[number].tracks[slot] = nil  // far and settled outside: implied from now on
            } else if let stored {
                trackers[number].tracks.replaceTrack(at: stored, with: decision.track)
            } else {
                trackers[number].tracks[slot] = decision.track
            }
            let durable = decision.isDurable(from: track)
            guard durable || decision.change != nil || decision.dwell != nil, let monitored = (filed ?? store.filed(inSlot: slot))?.monitored else { continue }
            if let change = decision.change { emit(change, of: monitored, device: device, fix: fix, into: &out) }
            if let dwell = decision.dwell { emit(dwell, of: monitored, device: device, fix: fix, into: &out) }
            if durable {
                let after = decision.track
                pending.trackUpserts.append(PersistedTrack(device: device, key: monitored.key, generation: after.generation,
                                                           state: after.state, entryCause: after.entryCause,
                                                           enteredAt: after.dwell.enteredAt, dwellFired: after.dwell.fired))
            }
        }
        let checked = store.nextGeneration - 1
        if trackers[number].checkedThrough != checked {
            trackers[number].checkedThrough = checked
            pending.deviceUpserts[device] = checked
        }
        trackers[number].lastFix = fix
        if keepsLastFixes { pending.lastFixes[device] = fix }
        trackers[number].recovering = false
        trackers[number].tracksLagLastFix = false
        trackers[number].quiet = configuration.quietZones
            ? quiet.zone(anchor: point, farMeters: farMeters, revision: store.revision) : nil
    }
}

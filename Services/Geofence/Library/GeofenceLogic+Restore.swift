import LocusProtocol

extension GeofenceLogic {
    /// Takes back what an earlier run stored: regions in their old slots, each device's
    /// checked generation, tracks and last fix (those devices reconcile on their next fix,
    /// `recovering`), and the region events it kept and never saw confirmed.
    mutating func restore(_ snapshot: PersistedSnapshot) {
        for stored in snapshot.regions {
            guard let (shape, effective) = try? RegionShapeConversion.shape(from: stored.region.shape, configuration: configuration) else { continue }
            let key = RegionKey(owner: stored.owner, id: stored.region.id)
            store.restore(MonitoredRegion(key: key, region: stored.region, shape: shape, effectiveRadiusMeters: effective,
                                          generation: stored.generation))
        }
        for (device, checked) in snapshot.devices {
            let number = deviceNumber(device)
            trackers[number].checkedThrough = checked
            trackers[number].recovering = true
        }
        for stored in snapshot.tracks {
            // A track of a region that is gone has nothing left to report.
            guard let region = store.region(stored.key) else { continue }
            var track = RegionTrack(generation: stored.generation, state: stored.state, entryCause: stored.entryCause)
            if let enteredAt = stored.enteredAt {
                track.dwell = DwellTimer(enteredAt: enteredAt, fired: stored.dwellFired)
            }
            let number = deviceNumber(stored.device)
            trackers[number].tracks[region.slot] = track
            trackers[number].recovering = true
        }
        for (device, fix) in snapshot.lastFixes {
            let number = deviceNumber(device)
            trackers[number].lastFix = fix
            trackers[number].recovering = true
        }
        unsentKept = snapshot.kept
        keptOutstanding = !unsentKept.isEmpty
    }
}

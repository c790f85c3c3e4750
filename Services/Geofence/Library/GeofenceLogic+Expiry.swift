import LocusService
import LocusProtocol
import LocusGeo

extension GeofenceLogic {
    /// At its `expires` time a region sends one `exit` (cause `expired`) to every device
    /// still inside, then is removed and `region.removed` published. The removal is in the
    /// same transaction that the runtime commits before publishing these, so the exits
    /// are sent once, and a service down at the expiry sends them when it is back.
    mutating func expire(_ region: MonitoredRegion, now: Double, into out: inout [Outbound]) {
        let owner = region.key.owner
        let at = region.region.expires ?? now
        for (device, number) in deviceNumbers.sorted(by: { $0.key < $1.key }) where region.watches(device) {
            guard trackers[number].state(for: region) == .inside else { continue }
            trackers[number].tracks[region.slot] = nil
            guard region.region.notifyOnExit else { continue }
            guard admitsEvent(of: owner) else { continue }
            let location = trackers[number].lastFix ?? Self.covering(region.shape, t: at)
            let event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: .exit, state: .outside,
                                    cause: .expired, location: location)
            out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: at))
        }
        store.remove(region.key)
        pending.deleteRegion(region.key)
        counters.regionsRemoved += 1
        out.append(Outbound(topic: Topic.regionState(owner), body: .regionRemoved(RegionRemoved(owner: owner, regionId: region.key.id)),
                            t: at))
    }

    /// A device known to be inside but not yet seen since a restart: a circle around the
    /// region's box that covers it (the device was somewhere in there).
    private static func covering(_ shape: Shape, t: Double) -> FixRef {
        let box = shape.boundingBox
        let centre = Coordinate(lat: (box.minLat + box.maxLat) / 2, lon: (box.minLon + box.maxLon) / 2)
        let corner = Coordinate(lat: box.maxLat, lon: box.maxLon)
        return FixRef(lat: centre.lat, lon: centre.lon, hacc: max(1, FastDistance.meters(centre, corner) * 1.01), t: t)
    }
}

import LocusGeo
import LocusProtocol
import LocusService
import LocusStore

/// The last known location: each device's newest fused fix saved at most every
/// `storeIntervalSeconds` (held in memory through a storage fault and retried), and the
/// saved fixes published once at start, marked `cache` with their age.
extension FusionLogic {
    mutating func saveIfDue(_ state: inout DeviceState, force: Bool) {
        guard let store, let entry = state.unsavedFix else { return }
        guard force || entry.t - state.lastStoredT >= configuration.storeIntervalSeconds else { return }
        // During an episode the newest fix per device waits (one per device: bounded) and is
        // tried again on the back-off; positions keep flowing, they need no storage.
        guard !storage.isFailing || storage.isRetryDue(now: entry.t) else { return }
        do {
            try store.save(entry)
            counters.add("stored")
            storage.succeeded()
        } catch {
            counters.add("storeErrors")
            if let report = storage.failed(StorageFault.from(error, path: store.directory.path), now: entry.t,
                                           holding: "keeping the newest location per device in memory") {
                storageReports.append(Outbound(topic: Topic.error(Self.service), body: .error(report), t: entry.t))
            }
            return
        }
        state.lastStoredT = entry.t
        state.unsavedFix = nil
    }

    /// Publishes the stored locations once, at the first moment the time is known, with their age.
    mutating func republishCache(now: Double) -> [Outbound] {
        guard !pendingCache.isEmpty else { return [] }
        let entries = pendingCache
        pendingCache = []
        var out: [Outbound] = []
        for entry in entries {
            let age = max(0, now - entry.t)
            guard age <= configuration.cacheValiditySeconds, Topic.isValidID(entry.device) else {
                counters.add("cacheExpired")
                continue
            }
            let location = Location(device: entry.device, source: "cache", lat: entry.lat, lon: entry.lon, hacc: entry.hacc,
                                    alt: entry.alt, mode: "cache", tier: AccuracyTier(haccMeters: entry.hacc).rawValue, age: age)
            out.append(Outbound(topic: Topic.locationFused(entry.device), body: .location(location), t: entry.t))
            counters.add("cacheRepublished")
            if let approx = configuration.approx {
                let point = approx.reduce(Coordinate(lat: entry.lat, lon: entry.lon), device: entry.device, t: entry.t)
                let reduced = Location(device: entry.device, source: "cache", lat: point.lat, lon: point.lon, hacc: approx.haccMeters,
                                       mode: "approx", tier: AccuracyTier(haccMeters: approx.haccMeters).rawValue, age: age)
                out.append(Outbound(topic: Topic.locationApprox(entry.device), body: .location(reduced), t: entry.t))
            }
        }
        return out
    }
}

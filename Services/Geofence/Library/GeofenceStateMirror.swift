public import LocusProtocol
public import LocusService

/// What a key-value store holds of one geofence's state, kept in memory so that a batch of
/// changes (`PersistenceBatch`) becomes whole records to write (`GeofenceStateRecords`):
/// the regions that changed and every device whose record changed. A device's last fix alone
/// rewrites its record only every `fixRefreshSeconds` of fix time; any other change writes
/// the newest fix with it.
public struct GeofenceStateMirror: Sendable {
    public enum Write: Sendable, Equatable {
        /// A region's record, or nil to delete it.
        case region(RegionKey, [UInt8]?)
        case device(String, [UInt8])
    }

    public var fixRefreshSeconds: Double
    public private(set) var regions: [RegionKey: PersistedRegion] = [:]
    public private(set) var devices: [String: GeofenceStateRecords.Device] = [:]
    /// The fix time each device's record was last written with.
    private var writtenFixTime: [String: Double] = [:]

    public init(fixRefreshSeconds: Double = 30) {
        self.fixRefreshSeconds = fixRefreshSeconds
    }

    /// Takes what the store held at start.
    public mutating func load(regions storedRegions: [PersistedRegion], devices storedDevices: [String: GeofenceStateRecords.Device]) {
        for region in storedRegions { regions[RegionKey(owner: region.owner, id: region.region.id)] = region }
        devices = storedDevices
        for (name, device) in storedDevices { writtenFixTime[name] = device.lastFix?.t }
    }

    /// The state as the geofence loads it: regions, committed tracks, `checkedThrough`, last fixes and kept events.
    public var snapshot: PersistedSnapshot {
        var snapshot = PersistedSnapshot(regions: Array(regions.values))
        for (name, device) in devices {
            snapshot.devices[name] = device.checkedThrough
            snapshot.tracks += device.tracks
            if let fix = device.lastFix { snapshot.lastFixes[name] = fix }
            snapshot.kept += device.kept
        }
        // Across devices, kept events go again in the order they happened.
        snapshot.kept.sort { ($0.message.envelope.t, $0.message.envelope.seq ?? 0) < ($1.message.envelope.t, $1.message.envelope.seq ?? 0) }
        return snapshot
    }

    /// Applies a batch; returns the records to write, regions first.
    public mutating func apply(_ batch: PersistenceBatch) -> [Write] {
        var writes: [Write] = []
        var changed = Set<String>()
        for key in batch.regionDeletes {
            regions[key] = nil
            writes.append(.region(key, nil))
            for (name, device) in devices where device.tracks.contains(where: { $0.key == key }) {
                devices[name]?.tracks.removeAll { $0.key == key }
                changed.insert(name)
            }
        }
        for region in batch.regionUpserts {
            let key = RegionKey(owner: region.owner, id: region.region.id)
            regions[key] = region
            writes.append(.region(key, GeofenceStateRecords.encode(region)))
        }
        if batch.clearsKept {
            for (name, device) in devices where !device.kept.isEmpty {
                devices[name]?.kept = []
                changed.insert(name)
            }
        }
        for track in batch.trackUpserts {
            var device = devices[track.device] ?? GeofenceStateRecords.Device()
            device.tracks.removeAll { $0.key == track.key }
            if track.state != .outside { device.tracks.append(track) }
            devices[track.device] = device
            changed.insert(track.device)
        }
        for (name, checked) in batch.deviceUpserts {
            devices[name, default: GeofenceStateRecords.Device()].checkedThrough = checked
            changed.insert(name)
        }
        for kept in batch.kept {
            guard case .regionEvent(let event) = kept.message.body else { continue }
            devices[event.device, default: GeofenceStateRecords.Device()].kept.append(kept)
            changed.insert(event.device)
        }
        for (name, fix) in batch.lastFixes {
            devices[name, default: GeofenceStateRecords.Device()].lastFix = fix
            if let written = writtenFixTime[name], fix.t - written < fixRefreshSeconds { continue }
            changed.insert(name)
        }
        for name in changed.sorted() {
            guard let device = devices[name] else { continue }
            writtenFixTime[name] = device.lastFix?.t
            writes.append(.device(name, GeofenceStateRecords.encode(device)))
        }
        return writes
    }
}

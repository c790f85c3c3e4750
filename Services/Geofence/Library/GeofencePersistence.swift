public import LocusProtocol
public import LocusService
public import LocusStore

/// Durable state in the form the database keeps it.
public struct PersistedTrack: Sendable, Equatable {
    public var device: String
    public var key: RegionKey
    public var generation: Int
    public var state: RegionState
    public var entryCause: RegionEventCause
    public var enteredAt: Double?
    public var dwellFired: Bool

    public init(device: String, key: RegionKey, generation: Int, state: RegionState, entryCause: RegionEventCause,
                enteredAt: Double?, dwellFired: Bool) {
        self.device = device
        self.key = key
        self.generation = generation
        self.state = state
        self.entryCause = entryCause
        self.enteredAt = enteredAt
        self.dwellFired = dwellFired
    }
}

/// A region as stored: the client's definition plus its generation.
public struct PersistedRegion: Sendable, Equatable {
    public var owner: String
    public var region: Region
    public var generation: Int

    public init(owner: String, region: Region, generation: Int) {
        self.owner = owner
        self.region = region
        self.generation = generation
    }
}

/// Everything written after one input (or one batch of inputs), applied atomically before
/// any resulting event is published, so a crash never leaves an event reported but
/// forgotten. Applied in the order: region deletes, region upserts, tracks, devices.
public struct PersistenceBatch: Sendable, Equatable {
    public var regionUpserts: [PersistedRegion] = []
    public var regionDeletes: [RegionKey] = []
    public var trackUpserts: [PersistedTrack] = []
    /// Device → `checkedThrough`.
    public var deviceUpserts: [String: Int] = [:]
    /// Events kept until the transport confirms them (`KeptMessage`); applied after `clearsKept`.
    public var kept: [KeptMessage] = []
    /// Everything kept before this batch is confirmed: forget it.
    public var clearsKept = false
    /// Each device's newest fix, for a store that keeps it (`GeofencePersistence.keepsLastFixes`).
    public var lastFixes: [String: FixRef] = [:]

    public init() {}

    public var isEmpty: Bool {
        regionUpserts.isEmpty && regionDeletes.isEmpty && trackUpserts.isEmpty && deviceUpserts.isEmpty
            && kept.isEmpty && !clearsKept && lastFixes.isEmpty
    }

    /// Records an add. A batch applies deletes first, so an add after a remove of the
    /// same id within one batch survives it.
    public mutating func upsertRegion(_ region: PersistedRegion) {
        regionUpserts.append(region)
    }

    /// Records a remove, cancelling what the batch wrote for that region before it.
    public mutating func deleteRegion(_ key: RegionKey) {
        regionUpserts.removeAll { $0.owner == key.owner && $0.region.id == key.id }
        trackUpserts.removeAll { $0.key == key }
        regionDeletes.append(key)
    }

    /// Empties the batch, keeping its storage for the next one.
    public mutating func removeAll() {
        regionUpserts.removeAll(keepingCapacity: true)
        regionDeletes.removeAll(keepingCapacity: true)
        trackUpserts.removeAll(keepingCapacity: true)
        deviceUpserts.removeAll(keepingCapacity: true)
        kept.removeAll(keepingCapacity: true)
        clearsKept = false
        lastFixes.removeAll(keepingCapacity: true)
    }
}

/// What was stored before a restart.
public struct PersistedSnapshot: Sendable, Equatable {
    public var regions: [PersistedRegion]
    public var tracks: [PersistedTrack]
    public var devices: [String: Int]
    /// Events an earlier run kept and never saw confirmed, oldest first.
    public var kept: [KeptMessage]
    /// Each device's last known fix, where the store keeps it.
    public var lastFixes: [String: FixRef]

    public init(regions: [PersistedRegion] = [], tracks: [PersistedTrack] = [], devices: [String: Int] = [:],
                kept: [KeptMessage] = [], lastFixes: [String: FixRef] = [:]) {
        self.regions = regions
        self.tracks = tracks
        self.devices = devices
        self.kept = kept
        self.lastFixes = lastFixes
    }
}

/// Where the geofence keeps its state; `GeofenceDatabase` (SQLite) on one host, the
/// replicated key-value state on NATS (`locus-geofence`'s `GeofenceKeyValueStore`), an
/// in-memory stand-in in tests.
public protocol GeofencePersistence: AnyObject {
    func load() throws -> PersistedSnapshot
    /// Applies `batch` atomically; a failure (a `StorageFault` for a real file) leaves the
    /// stored state as it was.
    func apply(_ batch: PersistenceBatch) throws
    /// True for a store that keeps each device's last fix (`PersistenceBatch.lastFixes`),
    /// so a geofence started elsewhere knows which re-delivered fixes it has already seen.
    var keepsLastFixes: Bool { get }
    /// Where the state lives, for reports ("memory" for a stand-in).
    var location: String { get }
    /// A small real write, to learn whether storage works again when nothing is pending.
    func probe() throws
    /// Gets ready to write again after `fault`: on a full disk gives back the space the
    /// write-ahead log holds, after the directory was removed puts the state back from what
    /// the open connection still holds.
    func prepareRetry(after fault: StorageFault) throws
}

extension GeofencePersistence {
    public var keepsLastFixes: Bool { false }
    public var location: String { "memory" }
    public func probe() throws { try apply(PersistenceBatch()) }
    public func prepareRetry(after fault: StorageFault) throws {}
}

import Foundation
import LocusBus
import LocusGeofence
import LocusNATS
import LocusProtocol
import LocusService

/// The geofence's state on NATS, in the replicated key-value bucket `LOCUS_GEOFENCE`
/// (docs/nats.md, "Geofence state"), so that a partition killed on one host and started on
/// another — with nothing on its disk — continues where it stopped:
///
/// - `r.<instance>.<owner>.<id>`: a region as this instance added it, with its generation;
/// - `d.<device>`: one device's whole record (`GeofenceStateRecords.Device`): committed
///   states, `checkedThrough`, last fix, events kept until confirmed.
///
/// A batch's records are written and confirmed by the servers before `apply` returns, so
/// the runtime publishes the batch's events only once the state that explains them is held.
final class GeofenceKeyValueStore: GeofencePersistence {
    static let bucketName = "LOCUS_GEOFENCE"
    private let bucket: NATSKeyValueBucket
    private let instance: String
    private let partition: Shard?
    private let log: ServiceLog
    private var mirror = GeofenceStateMirror()

    var keepsLastFixes: Bool { true }
    var location: String { "the NATS key-value bucket \(Self.bucketName)" }

    /// A small real write, confirmed: whether the cluster stores again after a failure.
    func probe() throws {
        try bucket.put("h.\(NATSKeyValueBucket.token(instance))", Array(String(Date().timeIntervalSince1970).utf8))
        guard bucket.confirm(timeoutSeconds: 5) else { throw NATSError("the state bucket did not confirm a probe write") }
    }

    /// Connects (retrying with back-off while the cluster is unreachable or refuses) and opens the bucket.
    init(settings: RuntimeSettings, log: ServiceLog) throws {
        instance = settings.instance
        partition = settings.partition
        self.log = log
        let endpoint = try NATSEndpoint(settings.endpoints.pub)
        var backOff = 0.25
        while true {
            do {
                let credentials = try settings.natsCredentialsFile.map { path throws(NATSError) in try NATSCredentials.load(path: path) }
                let connection = try NATSConnection(endpoint: endpoint, name: settings.source + "/state", credentials: credentials)
                bucket = try NATSKeyValueBucket(connection: connection, name: Self.bucketName)
                return
            } catch {
                log.warn("state bucket: \(error.message); retrying in \(backOff) s")
            }
            Thread.sleep(forTimeInterval: backOff)
            backOff = min(backOff * 2, 5)
        }
    }

    private func regionKey(_ key: RegionKey) -> String {
        "r.\(NATSKeyValueBucket.token(instance)).\(NATSKeyValueBucket.token(key.owner)).\(NATSKeyValueBucket.token(key.id))"
    }

    private func deviceKey(_ device: String) -> String { "d.\(NATSKeyValueBucket.token(device))" }

    /// Whether this instance handles `device` (with `--partition K/N`, the servers' partition function).
    private func owns(_ device: String) -> Bool {
        guard let partition, partition.count > 1 else { return true }
        return NATSPartition.of(device: device, count: partition.count) == partition.index
    }

    func load() throws -> PersistedSnapshot {
        var regions: [PersistedRegion] = []
        for (_, value) in try bucket.entries(matching: "r.\(NATSKeyValueBucket.token(instance)).>") {
            if let region = GeofenceStateRecords.region(value) { regions.append(region) }
        }
        var devices: [String: GeofenceStateRecords.Device] = [:]
        for (key, value) in try bucket.entries(matching: "d.>") {
            guard let name = NATSKeyValueBucket.text(ofToken: String(key.dropFirst(2))), owns(name),
                  let device = GeofenceStateRecords.device(value, name: name) else { continue }
            devices[name] = device
        }
        mirror.load(regions: regions, devices: devices)
        log.info("state from \(Self.bucketName): \(regions.count) region(s), \(devices.count) device(s)")
        return mirror.snapshot
    }

    func apply(_ batch: PersistenceBatch) throws {
        let writes = mirror.apply(batch)
        guard !writes.isEmpty else { return }
        for write in writes {
            switch write {
            case let .region(key, value?): try bucket.put(regionKey(key), value)
            case let .region(key, nil): try bucket.delete(regionKey(key))
            case let .device(name, value): try bucket.put(deviceKey(name), value)
            }
        }
        // The batch's events are published after this returns: the records that explain
        // them must be held first. A cluster that stays away for a minute is a storage error.
        for attempt in 1...12 {
            if bucket.confirm(timeoutSeconds: 5) { return }
            log.warn("state bucket has not confirmed \(writes.count) write(s) (attempt \(attempt)); sending them again")
        }
        throw NATSError("the state bucket did not confirm \(writes.count) write(s) in 60 s")
    }
}

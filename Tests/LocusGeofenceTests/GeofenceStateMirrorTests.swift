import LocusGeofence
import LocusProtocol
import LocusService
import XCTest

/// The geofence's state as whole key-value records (`GeofenceStateMirror`,
/// `GeofenceStateRecords`): a batch rewrites exactly the records it changed, a device's record
/// carries its states, last fix and kept events together, and what is written loads back.
final class GeofenceStateMirrorTests: XCTestCase {
    private let store = RegionKey(owner: "shop", id: "store")
    private let depot = RegionKey(owner: "shop", id: "depot")

    private func region(_ key: RegionKey, generation: Int) -> PersistedRegion {
        PersistedRegion(owner: key.owner, region: Region(id: key.id, shape: .circle(center: GeoPoint(lon: 121.47, lat: 31.23), radius: 150)),
                        generation: generation)
    }

    private func track(_ device: String, _ key: RegionKey, _ state: RegionState) -> PersistedTrack {
        PersistedTrack(device: device, key: key, generation: 1, state: state, entryCause: .crossing,
                       enteredAt: state == .inside ? 100 : nil, dwellFired: false)
    }

    private func event(_ device: String, id: String, t: Double) -> KeptMessage {
        let body = RegionEvent(owner: "shop", regionId: "store", device: device, event: .enter, state: .inside, cause: .crossing,
                               location: FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: t))
        return KeptMessage(topic: Topic.regionEvent("shop"), message: Message(body: .regionEvent(body), id: id, t: t, src: "geofence/p0", seq: Int(t)))
    }

    private func devices(_ writes: [GeofenceStateMirror.Write]) -> [String: GeofenceStateRecords.Device] {
        var found: [String: GeofenceStateRecords.Device] = [:]
        for case let .device(name, bytes) in writes { found[name] = GeofenceStateRecords.device(bytes, name: name) }
        return found
    }

    func testABatchWritesTheRegionsAndTheWholeRecordOfEachDeviceItChanged() {
        var mirror = GeofenceStateMirror()
        var batch = PersistenceBatch()
        batch.upsertRegion(region(store, generation: 1))
        batch.trackUpserts = [track("a", store, .inside)]
        batch.deviceUpserts = ["a": 1, "b": 1]
        batch.kept = [event("a", id: "e1", t: 100)]
        batch.lastFixes = ["a": FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: 100), "b": FixRef(lat: 31.3, lon: 121.5, hacc: 5, t: 100)]
        let writes = mirror.apply(batch)
        guard case .region(store, let bytes?) = writes.first else { return XCTFail("regions first: \(writes)") }
        XCTAssertEqual(GeofenceStateRecords.region(bytes), region(store, generation: 1))
        let written = devices(writes)
        XCTAssertEqual(Set(written.keys), ["a", "b"])
        XCTAssertEqual(written["a"]?.tracks, [track("a", store, .inside)])
        XCTAssertEqual(written["a"]?.kept, [event("a", id: "e1", t: 100)])
        XCTAssertEqual(written["a"]?.lastFix?.t, 100)
        XCTAssertEqual(written["b"]?.checkedThrough, 1)
        XCTAssertEqual(written["b"]?.tracks, [])
    }

    func testANewerFixAloneRewritesARecordOnlyAfterTheRefreshInterval() {
        var mirror = GeofenceStateMirror(fixRefreshSeconds: 30)
        var batch = PersistenceBatch()
        batch.deviceUpserts = ["a": 1]
        batch.lastFixes = ["a": FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: 100)]
        XCTAssertEqual(devices(mirror.apply(batch)).count, 1)
        batch = PersistenceBatch()
        batch.lastFixes = ["a": FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: 120)]
        XCTAssertEqual(mirror.apply(batch), [], "20 s later: not yet")
        batch.lastFixes = ["a": FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: 131)]
        XCTAssertEqual(devices(mirror.apply(batch))["a"]?.lastFix?.t, 131)
        batch = PersistenceBatch()
        batch.lastFixes = ["a": FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: 135)]
        XCTAssertEqual(mirror.apply(batch), [])
        batch = PersistenceBatch()
        batch.trackUpserts = [track("a", store, .inside)]
        XCTAssertEqual(devices(mirror.apply(batch))["a"]?.lastFix?.t, 135, "any other change writes the newest fix with it")
    }

    func testAnExitRemovesTheTrackAndARemovedRegionLeavesEveryRecord() {
        var mirror = GeofenceStateMirror()
        var batch = PersistenceBatch()
        batch.trackUpserts = [track("a", store, .inside), track("a", depot, .inside), track("b", store, .inside)]
        _ = mirror.apply(batch)
        batch = PersistenceBatch()
        batch.trackUpserts = [track("a", depot, .outside)]
        XCTAssertEqual(devices(mirror.apply(batch))["a"]?.tracks, [track("a", store, .inside)])
        batch = PersistenceBatch()
        batch.deleteRegion(store)
        let writes = mirror.apply(batch)
        XCTAssertEqual(writes.first, .region(store, nil))
        XCTAssertEqual(devices(writes).mapValues(\.tracks), ["a": [], "b": []])
    }

    func testConfirmedEventsLeaveTheRecordsThatKeptThem() {
        var mirror = GeofenceStateMirror()
        var batch = PersistenceBatch()
        batch.kept = [event("a", id: "e1", t: 100), event("b", id: "e2", t: 101)]
        _ = mirror.apply(batch)
        batch = PersistenceBatch()
        batch.clearsKept = true
        batch.kept = [event("c", id: "e3", t: 102)]
        let written = devices(mirror.apply(batch))
        XCTAssertEqual(written.mapValues(\.kept.count), ["a": 0, "b": 0, "c": 1])
    }

    func testWhatIsWrittenLoadsBackAsTheSnapshot() {
        var mirror = GeofenceStateMirror()
        var batch = PersistenceBatch()
        batch.upsertRegion(region(store, generation: 3))
        batch.trackUpserts = [track("a.1", store, .inside)]
        batch.deviceUpserts = ["a.1": 3]
        batch.kept = [event("b", id: "e2", t: 101), event("a.1", id: "e1", t: 100)]
        batch.lastFixes = ["a.1": FixRef(lat: 31.23, lon: 121.47, hacc: 5, t: 100)]
        let writes = mirror.apply(batch)
        var regions: [PersistedRegion] = []
        var records: [String: GeofenceStateRecords.Device] = [:]
        for write in writes {
            switch write {
            case let .region(_, bytes?): regions += GeofenceStateRecords.region(bytes).map { [$0] } ?? []
            case let .device(name, bytes): records[name] = GeofenceStateRecords.device(bytes, name: name)
            case .region(_, nil): break
            }
        }
        var loaded = GeofenceStateMirror()
        loaded.load(regions: regions, devices: records)
        let snapshot = loaded.snapshot
        XCTAssertEqual(snapshot.regions, [region(store, generation: 3)])
        XCTAssertEqual(snapshot.tracks, [track("a.1", store, .inside)])
        XCTAssertEqual(snapshot.devices, ["a.1": 3, "b": 0])
        XCTAssertEqual(snapshot.lastFixes["a.1"]?.t, 100)
        XCTAssertEqual(snapshot.kept.map(\.message.envelope.id), ["e1", "e2"], "kept events go again in the order they happened")
    }

    func testARecordThatIsNotOneIsSkipped() {
        XCTAssertNil(GeofenceStateRecords.device(Array("not json".utf8), name: "a"))
        XCTAssertNil(GeofenceStateRecords.region(Array("{}".utf8)))
    }
}

import Foundation
import LocusService
import LocusGeo
import LocusGeofence
import LocusProtocol
import XCTest

/// Writes batched per runtime batch (`commitsOnFlush`): nothing reaches storage before
/// `flush`, one transaction per batch, and the same events and stored state as writing
/// after every input.
final class BatchCommitTests: XCTestCase {
    /// Records every batch applied, so a test sees how writes were grouped.
    private final class RecordingPersistence: GeofencePersistence {
        var batches: [PersistenceBatch] = []
        func load() throws -> PersistedSnapshot { PersistedSnapshot() }
        func apply(_ batch: PersistenceBatch) throws { batches.append(batch) }
    }

    private let center = Coordinate(lat: 31.2304, lon: 121.4737)
    private var counter = 0

    private func message(_ body: Body, t: Double) -> Message {
        counter += 1
        return Message(body: body, id: "b\(counter)", t: t, src: "test/batch")
    }

    private func logic(_ persistence: (any GeofencePersistence)?, batched: Bool) throws -> GeofenceLogic {
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        var logic = try GeofenceLogic(configuration: configuration, persistence: persistence)
        logic.commitsOnFlush = batched
        return logic
    }

    private func add(_ id: String, radius: Double) -> Message {
        message(.regionAdd(RegionAdd(owner: "shop", region: Region(id: id, shape: .circle(
            center: GeoPoint(lon: center.lon, lat: center.lat), radius: radius)))), t: 0)
    }

    /// Three devices walking in from 500 m, interleaved, one fix per device per second.
    private func walk() -> [Message] {
        var messages: [Message] = []
        for step in 0...360 {
            for (number, device) in ["a", "b", "c"].enumerated() {
                let p = Geodesic.destination(from: center, azimuthDegrees: 100 * Double(number),
                                             distanceMeters: max(0, 500 - 1.4 * Double(step)))
                messages.append(message(.location(Location(device: device, source: "fused", lat: p.lat, lon: p.lon, hacc: 5)),
                                        t: 1000 + Double(step)))
            }
        }
        return messages
    }

    private func topic(_ message: Message) -> String {
        if case .location(let fix) = message.body { return Topic.locationFused(fix.device) }
        return Topic.regionCmd
    }

    func testBatchedWritesWaitForFlushAndMatchPerInputWrites() throws {
        let inputs = [add("store", radius: 200)] + walk()
        let single = RecordingPersistence(), batched = RecordingPersistence()
        var perInput = try logic(single, batched: false)
        var perBatch = try logic(batched, batched: true)
        var eventsPerInput: [Body] = [], eventsPerBatch: [Body] = []
        for start in stride(from: 0, to: inputs.count, by: 100) {
            for input in inputs[start..<min(start + 100, inputs.count)] {
                eventsPerInput += perInput.receive(input, topic: topic(input), now: input.envelope.t).map(\.body)
                eventsPerBatch += perBatch.receive(input, topic: topic(input), now: input.envelope.t).map(\.body)
            }
            let appliedBefore = batched.batches.count
            // A batch's messages wait in the logic until its commit, then come out of flush.
            eventsPerBatch += perBatch.flush(now: 0).map(\.body)
            XCTAssertLessThanOrEqual(batched.batches.count, appliedBefore + 1, "one transaction per batch")
        }
        XCTAssertEqual(eventsPerBatch, eventsPerInput)
        XCTAssertEqual(eventsPerBatch.filter { if case .regionEvent = $0 { true } else { false } }.count, 3)
        XCTAssertLessThan(batched.batches.count, single.batches.count)
        XCTAssertEqual(finalTracks(batched.batches), finalTracks(single.batches))
        XCTAssertEqual(finalTracks(batched.batches).values.map(\.state).sorted { $0.rawValue < $1.rawValue }, [.inside, .inside, .inside])
    }

    func testNothingIsWrittenBeforeFlush() throws {
        let persistence = RecordingPersistence()
        var logic = try logic(persistence, batched: true)
        let input = add("store", radius: 200)
        _ = logic.receive(input, topic: Topic.regionCmd, now: 0)
        XCTAssertTrue(persistence.batches.isEmpty)
        _ = logic.flush(now: 0)
        XCTAssertEqual(persistence.batches.count, 1)
        XCTAssertEqual(persistence.batches.first?.regionUpserts.map(\.region.id), ["store"])
        _ = logic.flush(now: 0)
        XCTAssertEqual(persistence.batches.count, 1, "an empty batch writes nothing")
    }

    /// Add, remove and add again of one id in one batch leaves the region stored; add then
    /// remove leaves it gone (a batch applies deletes first).
    func testAddRemoveInOneBatchKeepsTheLastWord() throws {
        let path = NSTemporaryDirectory() + "locus-batch-\(getpid())-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            var logic = try logic(try GeofenceDatabase(path: path), batched: true)
            let remove = { (id: String) in self.message(.regionRemove(RegionRemove(owner: "shop", regionId: id)), t: 0) }
            for input in [add("kept", radius: 200), remove("kept"), add("kept", radius: 300),
                          add("gone", radius: 200), remove("gone")] {
                _ = logic.receive(input, topic: Topic.regionCmd, now: 0)
            }
            XCTAssertEqual(logic.flush(now: 0).count, 5, "every command answered once its commit is done")
        }
        let restarted = try logic(try GeofenceDatabase(path: path), batched: true)
        XCTAssertEqual(restarted.store.all.map(\.key.id), ["kept"])
        XCTAssertEqual(restarted.store.all.first.flatMap { shape in
            if case .circle(let circle) = shape.shape { circle.radiusMeters } else { nil }
        }, 300)
    }

    private func finalTracks(_ batches: [PersistenceBatch]) -> [String: PersistedTrack] {
        var tracks: [String: PersistedTrack] = [:]
        for batch in batches {
            for track in batch.trackUpserts { tracks[track.device + "/" + track.key.id] = track }
        }
        return tracks
    }
}

import Foundation
import LocusGeo
import LocusGeofence
import LocusProtocol
import LocusService
import XCTest

/// Region events kept with the state until the transport confirms them (`KeptMessage`): named
/// by the geofence, in the same transaction as the crossing, found again by a restarted
/// geofence, and forgotten once confirmed — so a geofence killed between its commit and the
/// confirmation sends the event at its next start instead of losing it.
final class KeptEventsTests: XCTestCase {
    private let center = Coordinate(lat: 31.2304, lon: 121.4737)
    private var counter = 0

    private func message(_ body: Body, t: Double) -> Message {
        counter += 1
        return Message(body: body, id: "k\(counter)", t: t, src: "test/kept")
    }

    private func open(_ path: String) throws -> GeofenceLogic {
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        configuration.debounceSeconds = 0
        var logic = try GeofenceLogic(configuration: configuration, persistence: try GeofenceDatabase(path: path))
        logic.commitsOnFlush = true
        logic.keepOutputUntilConfirmed(source: "geofence/p0")
        return logic
    }

    private func fix(north meters: Double, t: Double) -> Message {
        let p = Geodesic.destination(from: center, azimuthDegrees: 0, distanceMeters: meters)
        return message(.location(Location(device: "d1", source: "fused", lat: p.lat, lon: p.lon, hacc: 5)), t: t)
    }

    /// Adds a region, walks d1 in, and commits the batch; returns what the commit released.
    private func crossIn(_ logic: inout GeofenceLogic) -> [Outbound] {
        let add = message(.regionAdd(RegionAdd(owner: "shop", region: Region(id: "store", shape: .circle(
            center: GeoPoint(lon: center.lon, lat: center.lat), radius: 150)))), t: 0)
        var out = logic.receive(add, topic: Topic.regionCmd, now: 0)
        out += logic.receive(fix(north: 1_000, t: 100), topic: Topic.locationFused("d1"), now: 100)
        out += logic.receive(fix(north: 0, t: 101), topic: Topic.locationFused("d1"), now: 101)
        out += logic.receive(fix(north: 0, t: 102), topic: Topic.locationFused("d1"), now: 102)
        return out + logic.flush(now: 103)
    }

    private func path() -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kept-\(UUID().uuidString).sqlite").path
        addTeardownBlock { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        return file
    }

    func testAnEventCommittedButNeverConfirmedIsFoundByTheNextRun() throws {
        let file = path()
        var first = try open(file)
        let released = crossIn(&first)
        let events = released.filter { $0.topic.hasPrefix(Topic.regionEventPrefix) }
        XCTAssertEqual(events.count, 1, "the walk in gives one enter")
        XCTAssertNotNil(events.first?.id, "named by the geofence, so a re-send carries the same id")
        XCTAssertNil(released.first { !$0.topic.hasPrefix(Topic.regionEventPrefix) }?.id, "replies are named by the runtime")
        // Killed here: committed, never confirmed.
        var second = try open(file)
        let kept = second.takeUnconfirmedMessages()
        XCTAssertEqual(kept.map(\.message.envelope.id), events.map(\.id), "only the event is kept, with its id")
        XCTAssertEqual(kept.first?.message.body, events.first?.body)
        XCTAssertEqual(kept.first?.message.envelope.src, "geofence/p0")
        XCTAssertEqual(second.takeUnconfirmedMessages(), [], "handed over once")
        XCTAssertEqual(second.tracker(for: "d1")?.tracks.count, 1, "and the crossing is committed beside it")
    }

    func testWithoutKeepingNothingIsNamedOrKept() throws {
        let file = path()
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        configuration.debounceSeconds = 0
        var plain = try GeofenceLogic(configuration: configuration, persistence: try GeofenceDatabase(path: file))
        plain.commitsOnFlush = true
        XCTAssertNil(crossIn(&plain).first { $0.topic.hasPrefix(Topic.regionEventPrefix) }?.id)
        var second = try open(file)
        XCTAssertEqual(second.takeUnconfirmedMessages(), [], "the ZeroMQ bus and --stdio keep nothing")
    }

    func testAConfirmedEventIsForgottenAtTheNextCommit() throws {
        let file = path()
        var first = try open(file)
        _ = crossIn(&first)
        first.keptMessagesConfirmed()
        _ = first.flush(now: 104)
        var second = try open(file)
        XCTAssertEqual(second.takeUnconfirmedMessages(), [])
    }

    func testWhatARestartSentAgainIsForgottenOnceConfirmed() throws {
        let file = path()
        var first = try open(file)
        _ = crossIn(&first)
        var second = try open(file)
        XCTAssertEqual(second.takeUnconfirmedMessages().count, 1)
        second.keptMessagesConfirmed()
        _ = second.flush(now: 200)
        var third = try open(file)
        XCTAssertEqual(third.takeUnconfirmedMessages(), [])
    }
}

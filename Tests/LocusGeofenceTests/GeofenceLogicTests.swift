import Foundation
import LocusService
import LocusGeo
import LocusGeofence
import LocusProtocol
import XCTest

/// The service logic in-process: events from fixes, device lists, and durable state
/// through the SQLite database.
final class GeofenceLogicTests: XCTestCase {
    private let store = Coordinate(lat: 31.2304, lon: 121.4737)
    private var counter = 0

    private func message(_ body: Body, t: Double) -> Message {
        counter += 1
        return Message(body: body, id: "m\(counter)", t: t, src: "test/logic")
    }

    private func configuration() -> GeofenceConfiguration {
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        return configuration
    }

    private func addStore(_ logic: inout GeofenceLogic, devices: [String]? = nil) -> [Outbound] {
        let region = Region(id: "store", shape: .circle(center: GeoPoint(lon: store.lon, lat: store.lat), radius: 200), devices: devices)
        return logic.receive(message(.regionAdd(RegionAdd(owner: "shop", region: region)), t: 0), topic: Topic.regionCmd, now: 0)
    }

    /// Fixes every second from 500 m south-west of the store to its centre.
    private func walkIn(_ logic: inout GeofenceLogic, device: String, from start: Double) -> [RegionEvent] {
        var found: [RegionEvent] = []
        for step in 0...360 {
            let p = Geodesic.destination(from: store, azimuthDegrees: 225, distanceMeters: max(0, 500 - 1.4 * Double(step)))
            let fix = Location(device: device, source: "fused", lat: p.lat, lon: p.lon, hacc: 5)
            let t = start + Double(step)
            for out in logic.receive(message(.location(fix), t: t), topic: Topic.locationFused(device), now: t) {
                if case .regionEvent(let event) = out.body { found.append(event) }
            }
        }
        return found
    }

    func testARefusalNamesTheCommandThatGrantsMonitoring() throws {
        var logic = try GeofenceLogic(configuration: GeofenceConfiguration())
        let refused = addStore(&logic)
        guard case .regionFailed(let failed)? = refused.first?.body else { return XCTFail("expected region.failed, got \(refused)") }
        XCTAssertEqual(failed.code, .notAuthorized)
        XCTAssertTrue(failed.message.hasSuffix("grant it with: locus auth grant shop always"), failed.message)
        let status = AuthStatus(client: "shop", status: .always, accuracy: .full)
        _ = logic.receive(message(.authStatus(status), t: 1), topic: Topic.authStatus("shop"), now: 1)
        guard case .regionAdded? = addStore(&logic).first?.body else { return XCTFail("always lets the owner monitor regions") }
    }

    func testWalkingInGivesOneEnterWithInterpolatedCrossing() throws {
        var logic = try GeofenceLogic(configuration: configuration())
        _ = addStore(&logic)
        let events = walkIn(&logic, device: "w", from: 1000)
        XCTAssertEqual(events.map(\.event), [.enter])
        let crossing = try XCTUnwrap(events.first?.crossingTime)
        XCTAssertEqual(crossing, 1000 + 300 / 1.4, accuracy: 0.5)
        XCTAssertGreaterThanOrEqual(events[0].location.t, crossing + 10)
    }

    func testRegionLimitedToDevicesIgnoresOthers() throws {
        var logic = try GeofenceLogic(configuration: configuration())
        _ = addStore(&logic, devices: ["truck-1"])
        XCTAssertEqual(walkIn(&logic, device: "truck-2", from: 0), [])
        XCTAssertEqual(walkIn(&logic, device: "truck-1", from: 0).map(\.event), [.enter])
    }

    func testStateSurvivesARestartThroughTheDatabase() throws {
        let path = NSTemporaryDirectory() + "geofence-test-\(getpid())-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            var logic = try GeofenceLogic(configuration: configuration(), persistence: try GeofenceDatabase(path: path))
            _ = addStore(&logic)
            XCTAssertEqual(walkIn(&logic, device: "w", from: 0).map(\.event), [.enter])
        }
        var restarted = try GeofenceLogic(configuration: configuration(), persistence: try GeofenceDatabase(path: path))
        XCTAssertEqual(restarted.store.count, 1)
        let far = Geodesic.destination(from: store, azimuthDegrees: 0, distanceMeters: 2000)
        let fix = Location(device: "w", source: "fused", lat: far.lat, lon: far.lon, hacc: 5)
        let out = restarted.receive(message(.location(fix), t: 5000), topic: Topic.locationFused("w"), now: 5000)
        guard case .regionEvent(let event)? = out.first?.body else { return XCTFail("expected an event, got \(out)") }
        XCTAssertEqual(event.event, .exit)
        XCTAssertEqual(event.cause, .recovered)
        let next = restarted.receive(message(.location(fix), t: 5001), topic: Topic.locationFused("w"), now: 5001)
        XCTAssertEqual(next, [])
    }

    /// An exit deletes the device's row (a missing row is "outside" for a device checked
    /// through the region), so the table holds inside states only; after a restart the
    /// device is still outside: no repeated exit, and walking back in is one enter.
    func testExitDeletesTheRowAndARestartStillKnowsTheDeviceIsOutside() throws {
        let path = NSTemporaryDirectory() + "geofence-test-\(getpid())-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let far = Geodesic.destination(from: store, azimuthDegrees: 0, distanceMeters: 2000)
        let outside = Location(device: "w", source: "fused", lat: far.lat, lon: far.lon, hacc: 5)
        do {
            var logic = try GeofenceLogic(configuration: configuration(), persistence: try GeofenceDatabase(path: path))
            _ = addStore(&logic)
            XCTAssertEqual(walkIn(&logic, device: "w", from: 0).map(\.event), [.enter])
            XCTAssertEqual(try GeofenceDatabase(path: path).load().tracks.map(\.state), [.inside])
            var exits: [RegionEventKind] = []
            for step in 0..<15 {
                let t = 1000 + Double(step)
                for out in logic.receive(message(.location(outside), t: t), topic: Topic.locationFused("w"), now: t) {
                    if case .regionEvent(let event) = out.body { exits.append(event.event) }
                }
            }
            XCTAssertEqual(exits, [.exit])
            XCTAssertEqual(try GeofenceDatabase(path: path).load().tracks, [])
        }
        var restarted = try GeofenceLogic(configuration: configuration(), persistence: try GeofenceDatabase(path: path))
        XCTAssertEqual(restarted.receive(message(.location(outside), t: 2000), topic: Topic.locationFused("w"), now: 2000), [])
        XCTAssertEqual(walkIn(&restarted, device: "w", from: 3000).map(\.event), [.enter])
    }

    func testOutOfOrderFixesAreHistoryThatLeavesTheStateAlone() throws {
        var logic = try GeofenceLogic(configuration: configuration())
        _ = addStore(&logic)
        _ = walkIn(&logic, device: "w", from: 1000)
        let far = Geodesic.destination(from: store, azimuthDegrees: 0, distanceMeters: 2000)
        let late = Location(device: "w", source: "fused", lat: far.lat, lon: far.lon, hacc: 5)
        for t in stride(from: 10.0, through: 100, by: 1) {
            XCTAssertEqual(logic.receive(message(.location(late), t: t), topic: Topic.locationFused("w"), now: 1400), [])
        }
        XCTAssertEqual(logic.healthCounters["lateFixes"], 91)
        XCTAssertEqual(logic.tracker(for: "w")?.lastFix?.t, 1360)
    }

    /// Buffered fixes uploaded after newer ones: the crossings inside them are reported with
    /// cause `late` and their interpolated time; the state that follows the newest fixes stays.
    func testCrossingsInLateFixesAreReportedAsLate() throws {
        var logic = try GeofenceLogic(configuration: configuration())
        _ = addStore(&logic)
        _ = walkIn(&logic, device: "w", from: 1000)
        var events: [RegionEvent] = []
        // Earlier that day: walked past the store, in at 400 m out and back out again.
        for second in 0...500 {
            let along = -350 + 1.4 * Double(second)  // metres east of the store's centre
            let p = offset(store, east: along, north: 0)
            let fix = Location(device: "w", source: "gps", lat: p.lat, lon: p.lon, hacc: 5)
            for out in logic.receive(message(.location(fix), t: 100 + Double(second)), topic: Topic.locationLate("w"), now: 1400) {
                if case .regionEvent(let event) = out.body { events.append(event) }
            }
        }
        XCTAssertEqual(events.map(\.event), [.enter, .exit])
        XCTAssertEqual(events.map(\.cause), [.late, .late])
        // Inside from 200 m west (t ≈ 100 + 150/1.4) to 200 m east (t ≈ 100 + 550/1.4).
        XCTAssertEqual(events[0].crossingTime ?? 0, 100 + 150 / 1.4, accuracy: 1.5)
        XCTAssertEqual(events[1].crossingTime ?? 0, 100 + 550 / 1.4, accuracy: 1.5)
        XCTAssertEqual(logic.tracker(for: "w")?.state(for: logic.store.region(RegionKey(owner: "shop", id: "store"))!), .inside)
        XCTAssertEqual(logic.healthCounters["lateFixes"], 501)
    }

    private func offset(_ base: Coordinate, east: Double, north: Double) -> Coordinate {
        LocalTangentPlane(origin: base).unproject(east: east, north: north)
    }
}

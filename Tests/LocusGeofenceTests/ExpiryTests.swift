import Foundation
import LocusService
import LocusGeo
import LocusGeofence
import LocusProtocol
import XCTest

/// A region with `expires`: one `exit` (cause `expired`) per device inside, then removal and
/// `region.removed`, exactly once — also when the service was down across the expiry time.
final class ExpiryTests: XCTestCase {
    private let centre = Coordinate(lat: 48.8566, lon: 2.3522)
    private var counter = 0

    private func message(_ body: Body, t: Double) -> Message {
        counter += 1
        return Message(body: body, id: "e\(counter)", t: t, src: "test/expiry")
    }

    private func logic(_ path: String) throws -> GeofenceLogic {
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        configuration.debounceSeconds = 0
        return try GeofenceLogic(configuration: configuration, persistence: GeofenceDatabase(path: path))
    }

    private func fix(_ logic: inout GeofenceLogic, _ device: String, _ p: Coordinate, t: Double) -> [Outbound] {
        let location = Location(device: device, source: "fused", lat: p.lat, lon: p.lon, hacc: 5)
        return logic.receive(message(.location(location), t: t), topic: Topic.locationFused(device), now: t)
    }

    private func events(_ out: [Outbound]) -> [RegionEvent] {
        out.compactMap { if case .regionEvent(let event) = $0.body { event } else { nil } }
    }

    private func removals(_ out: [Outbound]) -> [RegionRemoved] {
        out.compactMap { if case .regionRemoved(let removed) = $0.body { removed } else { nil } }
    }

    func testExpiryExitsEveryDeviceInsideOnceAndSurvivesARestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locus-expiry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("geofence.db").path
        let t0 = 1_800_000_000.0
        let far = Geodesic.destination(from: centre, azimuthDegrees: 90, distanceMeters: 2_000)

        var first = try logic(path)
        let region = Region(id: "market", shape: .circle(center: GeoPoint(lon: centre.lon, lat: centre.lat), radius: 300), expires: t0 + 100)
        _ = first.receive(message(.regionAdd(RegionAdd(owner: "town", region: region)), t: t0), topic: Topic.regionCmd, now: t0)
        // Two devices go in (one enters, one starts inside), one stays out.
        _ = fix(&first, "a", far, t: t0 + 1)
        XCTAssertEqual(events(fix(&first, "a", centre, t: t0 + 2)).map(\.event), [.enter])
        _ = fix(&first, "b", centre, t: t0 + 3)
        _ = fix(&first, "c", far, t: t0 + 4)
        XCTAssertEqual(first.tick(now: t0 + 99), [], "nothing before the expiry time")
        _ = first.flush(now: t0 + 99)

        // The service stops before the expiry time and comes back after it.
        first = try logic(path)
        let out = first.tick(now: t0 + 500)
        let exits = events(out)
        XCTAssertEqual(exits.map(\.device).sorted(), ["a", "b"])
        XCTAssertTrue(exits.allSatisfy { $0.event == .exit && $0.cause == .expired && $0.state == .outside })
        XCTAssertEqual(removals(out).map(\.regionId), ["market"])
        XCTAssertEqual(out.last.map { if case .regionRemoved = $0.body { true } else { false } }, true, "removal after the exits")
        XCTAssertEqual(first.tick(now: t0 + 600), [], "exactly once")
        XCTAssertTrue(events(fix(&first, "a", centre, t: t0 + 601)).isEmpty, "the region is gone")
        _ = first.flush(now: t0 + 601)

        // A second restart finds nothing left to expire and no region.
        var second = try logic(path)
        XCTAssertEqual(second.tick(now: t0 + 700), [])
        XCTAssertEqual(second.store.count, 0)
        XCTAssertTrue(events(fix(&second, "b", centre, t: t0 + 701)).isEmpty)
    }

    func testExpiryWhileRunningUsesTheLastFix() throws {
        var logic = try logic(FileManager.default.temporaryDirectory.appendingPathComponent("locus-expiry-\(UUID().uuidString).db").path)
        let t0 = 1_800_000_000.0
        let region = Region(id: "stall", shape: .circle(center: GeoPoint(lon: centre.lon, lat: centre.lat), radius: 300), expires: t0 + 50)
        _ = logic.receive(message(.regionAdd(RegionAdd(owner: "town", region: region)), t: t0), topic: Topic.regionCmd, now: t0)
        _ = fix(&logic, "a", centre, t: t0 + 10)
        let out = logic.tick(now: t0 + 50)
        let exit = try XCTUnwrap(events(out).first)
        XCTAssertEqual(exit.cause, .expired)
        XCTAssertEqual(exit.location.t, t0 + 10)
        XCTAssertEqual(out.first?.t, t0 + 50)
        XCTAssertEqual(removals(out).count, 1)
    }
}

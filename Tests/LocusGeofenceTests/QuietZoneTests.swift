import Foundation
import LocusService
import LocusGeo
@testable import LocusGeofence
import LocusProtocol
import XCTest

/// Quiet zones skip work, never results: the same traffic through a logic with them and
/// one without gives the same messages, byte for byte, and the same database.
final class QuietZoneTests: XCTestCase {
    private let plane = LocalTangentPlane(origin: Coordinate(lat: 47.0, lon: 8.0))

    // MARK: the zone itself

    private func zone(reach: Double = 50, marginedReach: Double = .infinity, until: Double = .infinity) -> QuietZone {
        QuietZone(anchor: plane.origin, reach: reach, marginedReach: marginedReach, until: until, revision: 3)
    }

    func testAdmitsOnlyWithinReachBeforeTheDeadlineAtTheSameRevision() {
        let near = plane.unproject(east: 30, north: 30)  // 42.4 m away
        let far = plane.unproject(east: 40, north: 40)  // 56.6 m away
        XCTAssertTrue(zone().admits(near, t: 10, marginMeters: 5, revision: 3))
        XCTAssertFalse(zone().admits(far, t: 10, marginMeters: 5, revision: 3))
        XCTAssertFalse(zone().admits(near, t: 10, marginMeters: 5, revision: 4), "the regions changed")
        XCTAssertFalse(zone(until: 10).admits(near, t: 10, marginMeters: 5, revision: 3), "a debounce or dwell is due")
        XCTAssertTrue(zone(until: 10.5).admits(near, t: 10, marginMeters: 5, revision: 3))
    }

    func testAPendingChangeCountsTheNewFixMargin() {
        let near = plane.unproject(east: 30, north: 0)
        XCTAssertTrue(zone(marginedReach: 40).admits(near, t: 0, marginMeters: 9, revision: 3))
        XCTAssertFalse(zone(marginedReach: 40).admits(near, t: 0, marginMeters: 11, revision: 3))
    }

    func testBuilderRefusesUndecidedAndStraddledRegionsAndBoundsPolygonsByTheirDistance() {
        let circle = RegionEssentials(monitored(.circle(center: GeoPoint(lon: 8, lat: 47), radius: 300)))
        let square = RegionEssentials(monitored(.polygon([[GeoPoint(lon: 8, lat: 47), GeoPoint(lon: 8.01, lat: 47),
                                                             GeoPoint(lon: 8.01, lat: 47.01), GeoPoint(lon: 8, lat: 47)]])))
        func built(_ track: RegionTrack, _ region: RegionEssentials, _ distance: Double) -> QuietZone? {
            var builder = QuietZoneBuilder()
            builder.observe(track, region: region, distance: distance, debounceSeconds: 10)
            return builder.zone(anchor: plane.origin, farMeters: 250, revision: 0)
        }
        let inside = RegionTrack(generation: 1, state: .inside)
        XCTAssertEqual(built(inside, circle, -20)?.reach ?? 0, 20 - QuietZone.slackMeters, accuracy: 1e-9)
        XCTAssertEqual(built(inside, circle, -900)?.reach ?? 0, 250 - QuietZone.slackMeters, accuracy: 1e-9, "capped by the index's reach")
        XCTAssertNil(built(inside, circle, 3), "inside but the fix lies outside the boundary: a change may start")
        XCTAssertNil(built(RegionTrack(generation: 1, state: .unknown), circle, -20))
        XCTAssertEqual(built(inside, square, -20)?.reach ?? 0, 20 - QuietZone.slackMeters, accuracy: 1e-9,
                       "a polygon bounds the zone by its distance, as a circle does")
        XCTAssertNil(built(inside, square, 3))
        var dwelling = inside
        dwelling.dwell.start(at: 100)
        let dwellCircle = RegionEssentials(monitored(.circle(center: GeoPoint(lon: 8, lat: 47), radius: 300), dwell: 60))
        XCTAssertEqual(built(dwelling, dwellCircle, -20)?.until ?? 0, 160 - QuietZone.slackSeconds, accuracy: 1e-9)
    }

    private func monitored(_ shape: RegionShape, dwell: Double? = nil) -> MonitoredRegion {
        let region = Region(id: "r", shape: shape, dwell: dwell)
        let (converted, effective) = try! RegionShapeConversion.shape(from: shape, configuration: GeofenceConfiguration())
        return MonitoredRegion(key: RegionKey(owner: "o", id: "r"), region: region, shape: converted, effectiveRadiusMeters: effective,
                               generation: 1)
    }

    // MARK: the same results

    /// A seeded mix of what a deployment sees: circles with and without dwell or device lists,
    /// polygons with holes, devices driving, stopping, jittering on boundaries and going
    /// silent, accuracies from 3 m to beyond the index margin, fixes out of order, regions
    /// added, replaced and removed, an owner's authorization dropping and coming back, and a
    /// restart from the database halfway.
    func testSameMessagesAndSameDatabaseWithAndWithoutQuietZones() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quiet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let quietPath = directory.appendingPathComponent("quiet.db").path
        let fullPath = directory.appendingPathComponent("full.db").path
        func open(_ path: String, quiet: Bool) throws -> GeofenceLogic {
            var configuration = GeofenceConfiguration()
            configuration.defaultAuthorization = .always
            configuration.quietZones = quiet
            var logic = try GeofenceLogic(configuration: configuration, persistence: GeofenceDatabase(path: path))
            logic.commitsOnFlush = true
            return logic
        }
        var quiet = try open(quietPath, quiet: true)
        var full = try open(fullPath, quiet: false)

        let traffic = trafficScript(seed: 7)
        var events = 0
        var quietFixes = 0
        for (number, item) in traffic.enumerated() {
            // Messages come out of flush, once their state is committed.
            func flushBoth(_ t: Double) {
                let fromQuiet = quiet.flush(now: t)
                XCTAssertEqual(fromQuiet, full.flush(now: t))
                events += fromQuiet.filter { if case .regionEvent = $0.body { true } else { false } }.count
            }
            if number == traffic.count / 2 {
                flushBoth(item.message.envelope.t)
                quietFixes += quiet.healthCounters["quietFixes"] ?? 0
                quiet = try open(quietPath, quiet: true)  // a restart: zones are not kept
                full = try open(fullPath, quiet: false)
            }
            let t = item.message.envelope.t
            let fromQuiet = quiet.receive(item.message, topic: item.topic, now: t)
            let fromFull = full.receive(item.message, topic: item.topic, now: t)
            XCTAssertEqual(fromQuiet, fromFull, "message \(number) on \(item.topic)")
            if fromQuiet != fromFull { return }
            events += fromQuiet.filter { if case .regionEvent = $0.body { true } else { false } }.count
            if number % 97 == 96 { flushBoth(t) }
        }
        let lastQuiet = quiet.flush(now: 0)
        XCTAssertEqual(lastQuiet, full.flush(now: 0))
        events += lastQuiet.filter { if case .regionEvent = $0.body { true } else { false } }.count
        quietFixes += quiet.healthCounters["quietFixes"] ?? 0
        XCTAssertEqual(try GeofenceDatabase(path: quietPath).load(), try GeofenceDatabase(path: fullPath).load())

        let fixes = traffic.filter { $0.topic.hasPrefix(Topic.locationFusedPrefix) }.count
        XCTAssertGreaterThan(events, 300, "the script crosses boundaries")
        XCTAssertGreaterThan(Double(quietFixes), 0.1 * Double(fixes), "quiet zones took part")
        XCTAssertNil(full.healthCounters["quietFixes"])
    }

    private func trafficScript(seed: UInt64) -> [(topic: String, message: Message)] {
        var random = SeededGenerator(seed: seed)
        var items: [(topic: String, message: Message)] = []
        var number = 0
        func add(_ topic: String, _ body: Body, t: Double) {
            number += 1
            items.append((topic, Message(body: body, id: "q\(number)", t: t, src: "test/quiet")))
        }
        func point(_ east: Double, _ north: Double) -> GeoPoint {
            let c = plane.unproject(east: east, north: north)
            return GeoPoint(lon: c.lon, lat: c.lat)
        }
        func region(_ index: Int) -> Region {
            let east = Double.random(in: -1500...1500, using: &random), north = Double.random(in: -1500...1500, using: &random)
            let shape: RegionShape
            if index % 5 == 4 {
                let w = Double.random(in: 200...600, using: &random)
                let outer = [point(east - w, north - w), point(east + w, north - w), point(east + w, north + w),
                             point(east - w, north + w), point(east - w, north - w)]
                let hole = [point(east - w / 3, north - w / 3), point(east - w / 3, north + w / 3), point(east + w / 3, north + w / 3),
                            point(east + w / 3, north - w / 3), point(east - w / 3, north - w / 3)]
                shape = .polygon(index % 10 == 9 ? [outer, hole] : [outer])
            } else {
                shape = .circle(center: point(east, north), radius: Double.random(in: 60...500, using: &random))
            }
            return Region(id: "r\(index)", shape: shape, notifyOnEntry: index % 7 != 3, notifyOnExit: index % 6 != 2,
                          dwell: index % 3 == 0 ? Double.random(in: 20...90, using: &random) : nil,
                          devices: index % 8 == 5 ? ["v0", "v1", "v2"] : nil)
        }
        for index in 0..<60 { add(Topic.regionCmd, .regionAdd(RegionAdd(owner: index % 2 == 0 ? "a" : "b", region: region(index))), t: 0) }

        struct Vehicle { var east, north, heading, speed: Double; var jitter: Bool }
        var vehicles = (0..<30).map { i in
            Vehicle(east: Double.random(in: -1500...1500, using: &random), north: Double.random(in: -1500...1500, using: &random),
                    heading: Double.random(in: 0..<(2 * .pi), using: &random), speed: Double.random(in: 0...18, using: &random),
                    jitter: i % 6 == 0)
        }
        let haccs = [3.0, 5, 8, 8, 12, 20, 40, 300]
        var t = 1_000.0
        for step in 0..<900 {
            t += 1
            for (i, vehicle) in vehicles.enumerated() {
                if i % 9 == 4 && (step / 60) % 3 == 1 { continue }  // silent for a minute now and then
                var v = vehicle
                if v.jitter {
                    v.east += Double.random(in: -12...12, using: &random)
                    v.north += Double.random(in: -12...12, using: &random)
                } else {
                    if Double.random(in: 0..<1, using: &random) < 0.02 { v.heading += Double.random(in: -1.5...1.5, using: &random) }
                    if Double.random(in: 0..<1, using: &random) < 0.01 { v.speed = Double.random(in: 0...18, using: &random) }
                    v.east += v.speed * cos(v.heading)
                    v.north += v.speed * sin(v.heading)
                    if abs(v.east) > 1800 || abs(v.north) > 1800 { v.heading += .pi }
                }
                vehicles[i] = v
                let p = point(v.east, v.north)
                let hacc = haccs[Int.random(in: 0..<haccs.count, using: &random)]
                let fixTime = i % 10 == 7 && step % 50 == 25 ? t - 5 : t  // now and then one out of order
                add(Topic.locationFused("v\(i)"), .location(Location(device: "v\(i)", source: "fused", lat: p.lat, lon: p.lon, hacc: hacc)),
                    t: fixTime)
            }
            if step % 150 == 75 { add(Topic.regionCmd, .regionAdd(RegionAdd(owner: "a", region: region(60 + step / 150))), t: t) }
            if step % 200 == 120 { add(Topic.regionCmd, .regionRemove(RegionRemove(owner: "b", regionId: "r\(step / 200 * 2 + 1)")), t: t) }
            if step % 170 == 100 { add(Topic.regionCmd, .regionAdd(RegionAdd(owner: "a", region: region(step / 170 * 2))), t: t) }  // replaced
            if step == 300 { add(Topic.authStatus("b"), .authStatus(AuthStatus(client: "b", status: .whenInUse, accuracy: .full)), t: t) }
            if step == 420 { add(Topic.authStatus("b"), .authStatus(AuthStatus(client: "b", status: .always, accuracy: .full)), t: t) }
        }
        return items
    }
}

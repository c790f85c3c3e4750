import LocusGeo
import XCTest
@testable import LocusProvider

final class GPXTimelineTests: XCTestCase {
    func testRecordedTrackKeepsItsOwnTimes() throws {
        let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx("cerknicko-jezero.gpx").path)
        let timeline = GPXTimeline(points: document.path, startTime: 0, metersPerSecond: 1)
        let fixes = timeline.fixes(device: "d", source: "gps", defaultHaccMeters: 5, hz: nil)
        XCTAssertEqual(fixes.count + timeline.droppedPoints, 296)
        XCTAssertEqual(fixes.first?.t, document.path.first?.time)
        XCTAssertTrue(zip(fixes, fixes.dropFirst()).allSatisfy { $0.t < $1.t })
    }

    func testTrackWithMissingTimesGetsIncreasingTimesWithinItsSpan() throws {
        let path = try GPXParser.parse(contentsOf: ProviderTestData.gpx("korita-zbevnica.gpx").path).path
        let timeline = GPXTimeline(points: path, startTime: 0, metersPerSecond: 1.4)
        let times = timeline.points.map(\.t)
        XCTAssertEqual(timeline.points.count + timeline.droppedPoints, 871)
        XCTAssertLessThan(timeline.droppedPoints, 20)
        XCTAssertTrue(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // Points that carry a time keep it exactly.
        for entry in timeline.points where entry.point.time != nil { XCTAssertEqual(entry.t, entry.point.time) }
    }

    func testWaypointsWithoutTimesMoveAtTheGivenSpeed() throws {
        let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx("route.gpx").path)
        let timeline = GPXTimeline(points: document.path, startTime: 1000, metersPerSecond: 2)
        let fixes = timeline.fixes(device: "d", source: "gps", defaultHaccMeters: 5, hz: nil)
        XCTAssertEqual(fixes.count, 55)
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            let meters = Geodesic.distance(Coordinate(lat: a.location.lat, lon: a.location.lon), Coordinate(lat: b.location.lat, lon: b.location.lon))
            XCTAssertEqual(b.t - a.t, meters / 2, accuracy: 1e-6)
            XCTAssertEqual(a.location.speed ?? 0, 2, accuracy: 1e-6)
        }
        XCTAssertEqual(fixes.first?.t, 1000)
    }

    func testInterpolationAtRequestedRate() {
        let a = GPXPoint(lat: 0, lon: 0, elevation: 10, time: 100)
        let b = GPXPoint(lat: 0, lon: 0.001, elevation: 20, time: 110)
        let fixes = GPXTimeline(points: [a, b], startTime: 0, metersPerSecond: 1)
            .fixes(device: "d", source: "gps", defaultHaccMeters: 5, hz: 2)
        XCTAssertEqual(fixes.map(\.t), stride(from: 100.0, through: 110, by: 0.5).map { $0 })
        let middle = fixes[10]
        XCTAssertEqual(middle.location.lon, 0.0005, accuracy: 1e-9)
        XCTAssertEqual(middle.location.alt!, 15, accuracy: 1e-9)
        XCTAssertEqual(middle.location.course!, 90, accuracy: 1e-6)
    }

    func testUntimedPointsBetweenTimedOnesGetDistanceProportionalTimes() {
        let points = [GPXPoint(lat: 0, lon: 0, time: 0), GPXPoint(lat: 0, lon: 0.001), GPXPoint(lat: 0, lon: 0.004, time: 40)]
        let times = GPXTimeline.assignTimes(points, startTime: 0, metersPerSecond: 1)
        XCTAssertEqual(times[1], 10, accuracy: 1e-6)
    }

    func testTimesGoingBackwardsAreDropped() {
        let points = [GPXPoint(lat: 0, lon: 0, time: 10), GPXPoint(lat: 0, lon: 0.001, time: 5), GPXPoint(lat: 0, lon: 0.002, time: 20)]
        let timeline = GPXTimeline(points: points, startTime: 0, metersPerSecond: 1)
        XCTAssertEqual(timeline.points.map(\.t), [10, 20])
        XCTAssertEqual(timeline.droppedPoints, 1)
    }
}

import LocusGeo
import XCTest
@testable import LocusProvider

/// How sightings at good fixes move a beacon's record, and how moves are found.
final class BeaconLearningTests: XCTestCase {
    let plane = LocalTangentPlane(origin: Coordinate(lat: 52.52, lon: 13.405))
    let learning = BeaconLearning(kind: .wifi)

    func at(_ east: Double, _ north: Double) -> Coordinate { plane.unproject(east: east, north: north) }

    func testANewBeaconStartsAtTheFixAndConvergesOnWhereItIsLoudest() {
        var (record, outcome) = learning.update(nil, seenAt: at(-60, 0), hacc: 5, signalDBm: -85, t: 0)
        XCTAssertEqual(outcome, .created)
        XCTAssertEqual(record.samples, 1)
        // Passing by: faint, loud near east = 0, faint again.
        for (east, signal) in [(-40.0, -78.0), (-20, -66), (0, -52), (20, -66), (40, -78), (60, -85)] {
            (record, outcome) = learning.update(record, seenAt: at(east, 0), hacc: 5, signalDBm: signal, t: 1)
            XCTAssertEqual(outcome, .updated)
        }
        let stored = plane.project(record.position)
        XCTAssertLessThan(abs(stored.east), 8, "weighted toward the loud sightings")
        XCTAssertEqual(record.samples, 7)
        XCTAssertGreaterThan(record.radius, 20)
        XCTAssertLessThan(record.radius, 120)
    }

    func testASightingFarAwayIsAMoveAndASecondMoveMakesItMobile() {
        var record = learning.update(nil, seenAt: at(0, 0), hacc: 5, signalDBm: -60, t: 0).record
        for step in 1...5 { record = learning.update(record, seenAt: at(Double(step) * 5, 0), hacc: 5, signalDBm: -60, t: 0).record }
        var (moved, outcome) = learning.update(record, seenAt: at(900, 400), hacc: 5, signalDBm: -60, t: 10)
        XCTAssertEqual(outcome, .moved)
        XCTAssertEqual(moved.moves, 1)
        XCTAssertEqual(moved.samples, 1, "starts again at the new place")
        XCTAssertLessThan(Geodesic.distance(moved.position, at(900, 400)), 0.01)
        XCTAssertFalse(moved.isMobile)
        (moved, outcome) = learning.update(moved, seenAt: at(0, 0), hacc: 5, signalDBm: -60, t: 20)
        XCTAssertEqual(outcome, .becameMobile)
        XCTAssertTrue(moved.isMobile)
        let after = learning.update(moved, seenAt: at(0, 0), hacc: 5, signalDBm: -60, t: 30)
        XCTAssertEqual(after.outcome, .ignoredMobile)
        XCTAssertEqual(after.record, moved, "a mobile beacon is never learned again")
    }

    func testCellsNeedAMuchLongerWayToCountAsMoved() {
        let cells = BeaconLearning(kind: .cell)
        let record = cells.update(nil, seenAt: at(0, 0), hacc: 10, signalDBm: nil, t: 0).record
        XCTAssertEqual(cells.update(record, seenAt: at(3_000, 0), hacc: 10, signalDBm: nil, t: 1).outcome, .updated)
        XCTAssertEqual(cells.update(record, seenAt: at(40_000, 0), hacc: 10, signalDBm: nil, t: 1).outcome, .moved)
    }
}

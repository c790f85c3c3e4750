import LocusGeo
import XCTest

/// Each defect `locus regions import --repair` fixes: the raw ring is refused (or wrong),
/// the repaired one is accepted and covers what the author meant; a crossing ring stays refused.
final class RingRepairTests: XCTestCase {
    private func c(_ lon: Double, _ lat: Double) -> Coordinate { Coordinate(lat: lat, lon: lon) }
    private var square: [Coordinate] { [c(0, 0), c(1, 0), c(1, 1), c(0, 1), c(0, 0)] }

    private func polygon(_ result: RingRepair.Result) throws -> MultiPolygon {
        try MultiPolygon.validated(polygons: result.parts)
    }

    func testRepeatedPositionsAreDropped() throws {
        let ring = [c(0, 0), c(0, 0), c(1, 0), c(1, 0), c(1, 0), c(1, 1), c(0, 1), c(0, 0), c(0, 0)]
        let result = RingRepair.repair(polygon: [ring])
        XCTAssertEqual(result.parts, [[square]])
        XCTAssertEqual(result.changes, ["outer ring: removed 4 repeated position(s)"])
        XCTAssertTrue(try polygon(result).contains(c(0.5, 0.5)))
    }

    func testSpikesAreCut() throws {
        // Out to (3, 0.5) and straight back along the same line, from the square's east side.
        let ring = [c(0, 0), c(1, 0), c(1, 0.5), c(3, 0.5), c(1, 0.5), c(1, 1), c(0, 1), c(0, 0)]
        XCTAssertThrowsError(try Polygon(rings: [ring]))
        let result = RingRepair.repair(polygon: [ring])
        XCTAssertEqual(result.changes, ["outer ring: removed 1 spike(s)"])
        let repaired = try polygon(result)
        XCTAssertTrue(repaired.contains(c(0.5, 0.5)))
        XCTAssertFalse(repaired.contains(c(2, 0.5)))
    }

    func testAnUnclosedRingIsClosed() throws {
        let ring = Array(square.dropLast())
        XCTAssertThrowsError(try Polygon(rings: [ring]))
        let result = RingRepair.repair(polygon: [ring])
        XCTAssertEqual(result.parts, [[square]])
        XCTAssertEqual(result.changes, ["outer ring: was not closed; its first position was added at the end"])
    }

    func testARingAcrossTheAntimeridianIsSplit() throws {
        // Meant: a box from 179° E across to 179° W. Read planar it spans the whole globe.
        let ring = [c(179, 0), c(-179, 0), c(-179, 1), c(179, 1), c(179, 0)]
        let naive = try Polygon(rings: [ring])
        XCTAssertTrue(naive.contains(c(0, 0.5)), "without repair the box covers the wrong side of the globe")
        let result = RingRepair.repair(polygon: [ring])
        XCTAssertEqual(result.parts.count, 2)
        XCTAssertEqual(result.changes, ["crossed the antimeridian: split at 180° into 2 parts"])
        let repaired = try polygon(result)
        XCTAssertTrue(repaired.contains(c(179.5, 0.5)))
        XCTAssertTrue(repaired.contains(c(-179.5, 0.5)))
        XCTAssertFalse(repaired.contains(c(0, 0.5)))
        XCTAssertFalse(repaired.contains(c(178.5, 0.5)))
    }

    func testACrossingRingIsNotGuessedAt() {
        let bowTie = [c(0, 0), c(1, 1), c(1, 0), c(0, 1), c(0, 0)]
        let result = RingRepair.repair(polygon: [bowTie])
        XCTAssertEqual(result.changes, [])
        XCTAssertThrowsError(try MultiPolygon.validated(polygons: result.parts))
    }
}

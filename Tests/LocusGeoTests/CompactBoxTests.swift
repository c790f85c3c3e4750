@testable import LocusGeo
import XCTest

/// The index's single-precision boxes only ever grow, so no candidate is missed.
final class CompactBoxTests: XCTestCase {
    func testRoundsOutwardAndKeepsEveryPointOfTheOriginal() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<10_000 {
            let lat = Double.random(in: -89...88, using: &random), lon = Double.random(in: -180...179, using: &random)
            let box = BoundingBox(minLat: lat, minLon: lon, maxLat: lat + Double.random(in: 0...1, using: &random),
                                  maxLon: min(180, lon + Double.random(in: 0...1, using: &random)))
            let compact = CompactBox(box)
            XCTAssertLessThanOrEqual(Double(compact.minLat), box.minLat)
            XCTAssertLessThanOrEqual(Double(compact.minLon), box.minLon)
            XCTAssertGreaterThanOrEqual(Double(compact.maxLat), box.maxLat)
            XCTAssertGreaterThanOrEqual(Double(compact.maxLon), box.maxLon)
            // Corners and a point one Double step inside each edge still count as inside.
            for p in [Coordinate(lat: box.minLat, lon: box.minLon), Coordinate(lat: box.maxLat, lon: box.maxLon),
                      Coordinate(lat: box.minLat.nextUp, lon: box.maxLon.nextDown)] {
                XCTAssertTrue(compact.contains(lat: Float(p.lat), lon: Float(p.lon)), "\(p) left out of \(box)")
            }
        }
    }

    func testANearlyFullWrapAroundBoxStaysFull() {
        // Crosses the antimeridian and leaves a gap far narrower than a Float step at 180°.
        let box = BoundingBox(minLat: -1, minLon: 179.999_999_9, maxLat: 1, maxLon: 179.999_999_8)
        XCTAssertTrue(box.crossesAntimeridian)
        let compact = CompactBox(box)
        for lon in stride(from: -180.0, through: 180, by: 15) {
            XCTAssertTrue(compact.contains(lat: 0, lon: Float(lon)), "lon \(lon)")
        }
        XCTAssertFalse(compact.contains(lat: 2, lon: 0))
    }

    func testWrappingBoxKeepsItsGap() {
        let fiji = CompactBox(BoundingBox(minLat: -20, minLon: 177, maxLat: -15, maxLon: -178))
        XCTAssertTrue(fiji.contains(lat: -17, lon: 179.5))
        XCTAssertTrue(fiji.contains(lat: -17, lon: -179))
        XCTAssertFalse(fiji.contains(lat: -17, lon: 0))
    }
}

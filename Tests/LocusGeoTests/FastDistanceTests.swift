import Foundation
import LocusGeo
import XCTest

/// Checks the documented error bound of `FastDistance` and `LocalTangentPlane` against
/// the exact geodesic, over the whole domain where the bound is claimed.
final class FastDistanceTests: XCTestCase {
    /// Random pairs up to 100 km, at every latitude the bound allows, across ±180°.
    func testErrorStaysWithinDocumentedBound() {
        var random = SeededGenerator(seed: 7)
        var worstRatio = 0.0
        for trial in 0..<20_000 {
            let distance = trial % 2 == 0 ? Double.random(in: 0.5...200, using: &random) : Double.random(in: 1...100_000, using: &random)
            let start = Coordinate(lat: Double.random(in: -89.5...89.5, using: &random), lon: Double.random(in: -180...180, using: &random))
            let end = Geodesic.destination(from: start, azimuthDegrees: Double.random(in: 0..<360, using: &random), distanceMeters: distance)
            let maxLat = max(abs(start.lat), abs(end.lat))
            guard FastDistance.isBoundValid(distanceMeters: distance, maxAbsLatitudeDegrees: maxLat) else { continue }
            let exact = Geodesic.distance(start, end)
            let error = abs(FastDistance.meters(start, end) - exact)
            let bound = FastDistance.errorBoundMeters(distanceMeters: exact, maxAbsLatitudeDegrees: maxLat)
            XCTAssertLessThanOrEqual(error, bound, "\(start) → \(end), \(exact) m")
            worstRatio = max(worstRatio, error / bound)
        }
        // The bound is tight enough to be useful: the worst case uses a fair part of it.
        XCTAssertGreaterThan(worstRatio, 0.2)
    }

    /// The figures quoted in the documentation: relative error at 10 km up to 80° latitude.
    func testRelativeErrorAtTenKilometresUpToEightyDegrees() {
        var random = SeededGenerator(seed: 8)
        var worstRelative = 0.0
        for _ in 0..<5_000 {
            let start = Coordinate(lat: Double.random(in: -80...80, using: &random), lon: Double.random(in: -180...180, using: &random))
            let end = Geodesic.destination(from: start, azimuthDegrees: Double.random(in: 0..<360, using: &random), distanceMeters: 10_000)
            guard abs(end.lat) <= 80 else { continue }
            worstRelative = max(worstRelative, abs(FastDistance.meters(start, end) - 10_000) / 10_000)
        }
        XCTAssertLessThan(worstRelative, 7e-6)
        XCTAssertGreaterThan(worstRelative, 1e-7)  // an approximation, not a second exact method
    }

    func testLocalTangentPlaneRoundTripsAndMatchesFastDistance() {
        var random = SeededGenerator(seed: 9)
        for _ in 0..<2_000 {
            let origin = Coordinate(lat: Double.random(in: -85...85, using: &random), lon: Double.random(in: -180...180, using: &random))
            let plane = LocalTangentPlane(origin: origin)
            let point = Geodesic.destination(from: origin, azimuthDegrees: Double.random(in: 0..<360, using: &random),
                                             distanceMeters: Double.random(in: 0...20_000, using: &random))
            let (east, north) = plane.project(point)
            XCTAssertEqual((east * east + north * north).squareRoot(), FastDistance.meters(origin, point), accuracy: 1e-6)
            let back = plane.unproject(east: east, north: north)
            XCTAssertLessThan(Geodesic.distance(back, point), 1e-6, "\(origin) \(point)")
        }
    }

    func testLocalTangentPlaneAxesPointEastAndNorth() {
        let origin = Coordinate(lat: 45, lon: 179.9995)
        let plane = LocalTangentPlane(origin: origin)
        let east = plane.project(Geodesic.destination(from: origin, azimuthDegrees: 90, distanceMeters: 100))
        XCTAssertEqual(east.east, 100, accuracy: 1e-3)  // across the antimeridian
        XCTAssertEqual(east.north, 0, accuracy: 1e-3)
        let north = plane.project(Geodesic.destination(from: origin, azimuthDegrees: 0, distanceMeters: 100))
        XCTAssertEqual(north.north, 100, accuracy: 1e-6)
        XCTAssertEqual(north.east, 0, accuracy: 1e-9)
    }
}

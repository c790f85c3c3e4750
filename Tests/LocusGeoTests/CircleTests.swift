import LocusGeo
import XCTest

final class CircleTests: XCTestCase {
    /// `contains` must agree with the exact geodesic everywhere, including points placed
    /// micrometres either side of the boundary where the fast test cannot decide.
    func testContainsAgreesWithExactGeodesic() {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<300 {
            let center = Coordinate(lat: Double.random(in: -89...89, using: &random), lon: Double.random(in: -180...180, using: &random))
            let radii: [Double] = [Double.random(in: 1...100, using: &random), Double.random(in: 100...5_000, using: &random),
                          Double.random(in: 5_000...200_000, using: &random)]
            let radius = radii.randomElement(using: &random) ?? 100
            let circle = Circle(center: center, radiusMeters: radius)
            for _ in 0..<60 {
                let offsets: [Double] = [Double.random(in: -1e-5...1e-5, using: &random), Double.random(in: -0.05...0.05, using: &random),
                              Double.random(in: -1...1, using: &random) * radius]
                let offset = offsets.randomElement(using: &random) ?? 0
                let p = Geodesic.destination(from: center, azimuthDegrees: Double.random(in: 0..<360, using: &random),
                                             distanceMeters: max(0, radius + offset))
                XCTAssertEqual(circle.contains(p), Geodesic.distance(center, p) <= radius, "\(center) r \(radius) p \(p)")
            }
        }
    }

    func testSignedDistanceIsNegativeInside() {
        let circle = Circle(center: Coordinate(lat: 52.52, lon: 13.405), radiusMeters: 250)
        let inside = Geodesic.destination(from: circle.center, azimuthDegrees: 30, distanceMeters: 200)
        let outside = Geodesic.destination(from: circle.center, azimuthDegrees: 210, distanceMeters: 400)
        XCTAssertEqual(circle.signedDistance(inside), -50, accuracy: 1e-6)
        XCTAssertEqual(circle.signedDistance(outside), 150, accuracy: 1e-6)
        XCTAssertEqual(Shape.circle(circle).signedDistanceMeters(outside), 150, accuracy: 1e-6)
    }

    /// Every boundary point lies in the box, and the box is not wastefully large.
    func testBoundingBoxHoldsTheCircle() {
        var random = SeededGenerator(seed: 12)
        for _ in 0..<400 {
            let center = Coordinate(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180...180, using: &random))
            let radius = Double.random(in: 1...3_000_000, using: &random)
            let circle = Circle(center: center, radiusMeters: radius)
            for step in 0..<72 {
                let p = Geodesic.destination(from: center, azimuthDegrees: Double(step) * 5, distanceMeters: radius)
                XCTAssertTrue(circle.boundingBox.contains(p), "\(center) r \(radius) misses \(p) box \(circle.boundingBox)")
            }
        }
        let small = Circle(center: Coordinate(lat: 45, lon: 7), radiusMeters: 1_000).boundingBox
        XCTAssertEqual(small.maxLat - small.minLat, 2 * 1_000 / 111_132, accuracy: 1e-4)
        XCTAssertEqual(small.maxLon - small.minLon, 2 * 1_000 / (111_320 * 0.7071), accuracy: 2e-4)
    }

    func testCircleAcrossTheAntimeridianWrapsItsBox() {
        let circle = Circle(center: Coordinate(lat: -17.8, lon: 179.99), radiusMeters: 5_000)
        XCTAssertTrue(circle.boundingBox.crossesAntimeridian)
        let west = Geodesic.destination(from: circle.center, azimuthDegrees: 90, distanceMeters: 4_000)
        XCTAssertLessThan(west.lon, -179)
        XCTAssertTrue(circle.contains(west))
        XCTAssertFalse(circle.contains(Geodesic.destination(from: circle.center, azimuthDegrees: 90, distanceMeters: 6_000)))
        XCTAssertFalse(circle.contains(Coordinate(lat: -17.8, lon: 0)))
    }

    func testCircleAroundAPoleSpansAllLongitudes() {
        let circle = Circle(center: Coordinate(lat: 89.95, lon: 10), radiusMeters: 20_000)
        XCTAssertEqual(circle.boundingBox, BoundingBox(minLat: circle.boundingBox.minLat, minLon: -180, maxLat: 90, maxLon: 180))
        XCTAssertTrue(circle.contains(Coordinate(lat: 89.9, lon: -170)))  // across the pole, ~11 km away
        XCTAssertTrue(circle.contains(Coordinate(lat: 90, lon: 0)))
        XCTAssertFalse(circle.contains(Coordinate(lat: 89.7, lon: -170)))
    }

    func testValidationRejectsBadInput() {
        XCTAssertThrowsError(try Circle.validated(center: Coordinate(lat: 91, lon: 0), radiusMeters: 10))
        XCTAssertThrowsError(try Circle.validated(center: Coordinate(lat: 0, lon: .nan), radiusMeters: 10))
        XCTAssertThrowsError(try Circle.validated(center: Coordinate(lat: 0, lon: 0), radiusMeters: 0))
        XCTAssertThrowsError(try Circle.validated(center: Coordinate(lat: 0, lon: 0), radiusMeters: .infinity))
        XCTAssertEqual(try Circle.validated(center: Coordinate(lat: 1, lon: 2), radiusMeters: 3).radiusMeters, 3)
    }
}

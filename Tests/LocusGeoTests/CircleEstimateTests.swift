import LocusGeo
import XCTest

/// `signedDistanceEstimate` stays within its stated error of the exact signed distance,
/// and is exact (error 0) where it does not use the fast distance.
final class CircleEstimateTests: XCTestCase {
    func testEstimateIsWithinItsErrorOfTheExactDistance() {
        var random = SeededGenerator(seed: 11)
        for latitude in [0.0, 31.2, 45, -60, 80] {
            for radius in [100.0, 1_000, 20_000] {
                let center = Coordinate(lat: latitude, lon: Double.random(in: -179...179, using: &random))
                let circle = Circle(center: center, radiusMeters: radius)
                for _ in 0..<300 {
                    let distance = Double.random(in: 0...(radius + 3_000), using: &random)
                    let p = Geodesic.destination(from: center, azimuthDegrees: Double.random(in: 0..<360, using: &random),
                                                 distanceMeters: distance)
                    let exact = circle.signedDistance(p)
                    let (estimate, error) = circle.signedDistanceEstimate(p)
                    XCTAssertLessThanOrEqual(abs(estimate - exact), error + 1e-9, "lat \(latitude) r \(radius) d \(distance)")
                    // Geofence-sized circles get a band of millimetres at most (a 20 km circle
                    // near 80° gets most of a metre, still far cheaper than the exact distance).
                    if radius <= 1_000 { XCTAssertLessThan(error, 0.005) }
                    if distance > radius + Circle.estimateReachBeyondMeters + 1 { XCTAssertEqual(error, 0) }
                }
            }
        }
    }

    func testFarPointsAndPolarCirclesAreExact() {
        let polar = Circle(center: Coordinate(lat: 89.9, lon: 0), radiusMeters: 500)
        let p = Coordinate(lat: 89.905, lon: 10)
        XCTAssertEqual(polar.signedDistanceEstimate(p).errorMeters, 0)
        XCTAssertEqual(polar.signedDistanceEstimate(p).meters, polar.signedDistance(p))
        let circle = Circle(center: Coordinate(lat: 10, lon: 10), radiusMeters: 200)
        let far = Coordinate(lat: -10, lon: -170)
        XCTAssertEqual(circle.signedDistanceEstimate(far).errorMeters, 0)
        XCTAssertEqual(Shape.circle(circle).signedDistanceEstimate(far).meters, circle.signedDistance(far))
    }
}

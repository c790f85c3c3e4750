import LocusFusion
import LocusGeo
import LocusProtocol
import XCTest

/// A fix's Doppler velocity: when it is used, how it is read, and that it steadies the track.
final class VelocityFusionTests: XCTestCase {
    private func location(speed: Double?, speedAcc: Double?, course: Double?, courseAcc: Double? = nil) -> Location {
        Location(device: "d", source: "gps", lat: 0, lon: 0, hacc: 5, speed: speed, speedAcc: speedAcc, course: course, courseAcc: courseAcc)
    }

    func testSpeedWithoutAccuracyIsNotUsed() {
        XCTAssertNil(VelocityMeasurement(location(speed: 10, speedAcc: nil, course: 90)))
        XCTAssertNil(VelocityMeasurement(location(speed: 10, speedAcc: 0.5, course: nil)))
    }

    func testSpeedAndCourseBecomeEastNorth() throws {
        let east = try XCTUnwrap(VelocityMeasurement(location(speed: 10, speedAcc: 0.5, course: 90)))
        XCTAssertEqual(east.eastMetersPerSecond, 10, accuracy: 1e-9)
        XCTAssertEqual(east.northMetersPerSecond, 0, accuracy: 1e-9)
        XCTAssertEqual(east.sigmaMetersPerSecond, 0.5)
        // A course known to 10° at 10 m/s is a cross-track error of 1.7 m/s: the wider sigma wins.
        let vague = try XCTUnwrap(VelocityMeasurement(location(speed: 10, speedAcc: 0.5, course: 180, courseAcc: 10)))
        XCTAssertEqual(vague.northMetersPerSecond, -10, accuracy: 1e-9)
        XCTAssertEqual(vague.sigmaMetersPerSecond, 10 * 10 * .pi / 180, accuracy: 1e-9)
    }

    func testSpeedNearZeroNeedsNoCourse() throws {
        let still = try XCTUnwrap(VelocityMeasurement(location(speed: 0.1, speedAcc: 0.3, course: nil)))
        XCTAssertEqual(still.eastMetersPerSecond, 0)
        XCTAssertEqual(still.northMetersPerSecond, 0)
        XCTAssertGreaterThanOrEqual(still.sigmaMetersPerSecond, 0.3)
    }

    /// Two fixes a second apart say nothing reliable about speed; a Doppler velocity does.
    func testVelocityIsFusedAndGated() throws {
        var filter = DeviceFilter()
        let origin = Coordinate(lat: 49, lon: 8)
        let plane = LocalTangentPlane(origin: origin)
        XCTAssertEqual(filter.update(coordinate: origin, haccMeters: 5, t: 0), .initialized)
        XCTAssertTrue(filter.updateVelocity(eastMetersPerSecond: 12, northMetersPerSecond: 0, sigmaMetersPerSecond: 0.5))
        XCTAssertEqual(filter.update(coordinate: plane.unproject(east: 12, north: 0), haccMeters: 5, t: 1), .fused)
        XCTAssertTrue(filter.updateVelocity(eastMetersPerSecond: 12, northMetersPerSecond: 0, sigmaMetersPerSecond: 0.5))
        let estimate = try XCTUnwrap(filter.estimate)
        XCTAssertEqual(estimate.speedMetersPerSecond, 12, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(estimate.courseDegrees), 90, accuracy: 3)
        // A velocity far outside what the filter believes is ignored, not fused.
        XCTAssertFalse(filter.updateVelocity(eastMetersPerSecond: -40, northMetersPerSecond: 0, sigmaMetersPerSecond: 0.5))
        XCTAssertEqual(try XCTUnwrap(filter.estimate).speedMetersPerSecond, estimate.speedMetersPerSecond)
    }

    /// Through the logic: a fix with speedAcc moves the fused speed; one without leaves it to the positions.
    func testLogicUsesVelocityOnlyWithAccuracy() throws {
        func fusedSpeed(speedAcc: Double?) throws -> Double {
            var logic = FusionLogic()
            var speed = -1.0
            for index in 0..<2 {
                let t = 1_000.0 + Double(index)
                let fix = Location(device: "car", source: "gps", lat: 49, lon: 8, hacc: 5, speed: 10, speedAcc: speedAcc, course: 0)
                let message = Message(body: .location(fix), id: "m\(index)", t: t, src: "test")
                for out in logic.receive(message, topic: Topic.locationRaw("car"), now: t) where out.topic == Topic.locationFused("car") {
                    if case .location(let fused) = out.body { speed = try XCTUnwrap(fused.speed) }
                }
            }
            return speed
        }
        XCTAssertGreaterThan(try fusedSpeed(speedAcc: 0.3), 5)
        XCTAssertLessThan(try fusedSpeed(speedAcc: nil), 1)
    }
}

import LocusGeo
import LocusMotion
import LocusProtocol
import XCTest

/// Holding still without fixes (an elevator) and walking without fixes until the cache expires.
final class StationaryAndCacheScenarioTests: XCTestCase {
    private let place = Coordinate(lat: 52.52, lon: 13.405)
    private let t0 = 1_700_000_000.0

    func testElevatorHoldsPositionWithSlowlyGrowingRadius() {
        var scenario = MotionScenario()
        scenario.activity("phone", .walking, t: t0)
        for second in 0..<20 {
            let at = Geodesic.destination(from: place, azimuthDegrees: 180, distanceMeters: 1.2 * Double(second))
            scenario.fused("phone", at, hacc: 6, t: t0 + Double(second), speed: 1.2, speedAcc: 0.3, course: 180)
        }
        let last = Geodesic.destination(from: place, azimuthDegrees: 180, distanceMeters: 1.2 * 19)
        // Enters the elevator: stationary, no fixes for 60 s; activity reports every 5 s.
        for second in stride(from: 20, through: 80, by: 5) {
            scenario.activity("phone", .stationary, t: t0 + Double(second))
        }
        let dr = scenario.fixes(source: "dr")
        XCTAssertGreaterThanOrEqual(dr.count, 50)
        for fix in dr {
            XCTAssertLessThanOrEqual(Geodesic.distance(last, Coordinate(lat: fix.location.lat, lon: fix.location.lon)), 5)
        }
        XCTAssertTrue(dr.allSatisfy { $0.location.speed == 0 })
        XCTAssertLessThan(dr.last!.location.hacc, 6 + 0.3 * 61 + 0.05 * 61 + 1, "a standing device's radius grows slowly")
        XCTAssertEqual(scenario.fixes(source: "cache").count, 0)
    }

    func testWalkingWithoutFixesFallsBackToCacheThenGoesSilentAfterThirtyMinutes() {
        var scenario = MotionScenario()
        scenario.activity("walker", .walking, t: t0)
        for second in 0..<5 {
            let at = Geodesic.destination(from: place, azimuthDegrees: 90, distanceMeters: 1.4 * Double(second))
            scenario.fused("walker", at, hacc: 5, t: t0 + Double(second), speed: 1.4, speedAcc: 0.2, course: 90)
        }
        let lastFixT = t0 + 4
        for second in stride(from: 10, through: 2400, by: 10) {
            scenario.activity("walker", .walking, t: t0 + Double(second))
        }
        let dr = scenario.fixes(source: "dr")
        let cache = scenario.fixes(source: "cache")
        XCTAssertFalse(dr.isEmpty)
        XCTAssertFalse(cache.isEmpty)
        XCTAssertLessThan(dr.last!.t, cache.first!.t, "cache follows dead reckoning")
        for fix in cache {
            XCTAssertEqual(fix.location.age!, fix.t - lastFixT, accuracy: 1e-6, "true age")
            XCTAssertEqual(fix.location.mode, "cache")
        }
        let everything = scenario.output.filter { if case .location = $0.body { return true } else { return false } }
        XCTAssertTrue(everything.allSatisfy { $0.t <= lastFixT + 1800 }, "nothing after 30 minutes")
        let unavailable = scenario.errors.filter { $0.code == "unavailable" }
        XCTAssertEqual(unavailable.count, 1)
        XCTAssertEqual(scenario.logic.healthState, .degraded)
        XCTAssertEqual(scenario.logic.healthDetail?["unavailable"], "walker")

        // A good fix brings it back at once.
        scenario.fused("walker", place, hacc: 5, t: t0 + 2401, speed: 1.4, course: 90)
        XCTAssertEqual(scenario.logic.healthState, .ok)
    }

    func testPoorFixesCountAsLost() {
        var scenario = MotionScenario()
        scenario.activity("bike", .cycling, t: t0)
        for second in 0..<5 {
            scenario.fused("bike", place, hacc: 5, t: t0 + Double(second), speed: 5, course: 0)
        }
        for second in 5...14 {
            scenario.fused("bike", place, hacc: 80, t: t0 + Double(second), speed: 5, course: 0)
        }
        let dr = scenario.fixes(source: "dr")
        XCTAssertEqual(dr.first?.t, t0 + 5)
        XCTAssertEqual(dr.last?.t, t0 + 14)
        XCTAssertEqual(scenario.logic.healthCounters["poorFixes"], 10)
    }
}

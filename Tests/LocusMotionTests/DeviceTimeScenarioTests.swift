import LocusService
import LocusGeo
import LocusMotion
import LocusProtocol
import XCTest

/// Outages are judged on each device's own clock, and only for a device that was reporting at
/// a steady rhythm while moving. Arrival times are given explicitly, as on the bus, where the
/// runtime's `now` is the wall clock and a fix's `t` is the device's.
final class DeviceTimeScenarioTests: XCTestCase {
    private let start = Coordinate(lat: 48.137, lon: 11.575)
    private let t0 = 1_700_000_000.0

    /// A car at 12 m/s sending one fix per second of its own time, each arriving `delay(k)`
    /// seconds after its time; the runtime ticks four times a second between arrivals.
    private func drive(_ scenario: inout MotionScenario, seconds: Int, delay: (Int) -> Double) {
        scenario.activity("car", .automotive, t: t0, arrival: t0 + delay(0))
        var newest = -Double.infinity
        for k in 0..<seconds {
            let t = t0 + Double(k)
            let arrival = t + delay(k)
            for quarter in 1...4 { scenario.tick(at: arrival - 1 + Double(quarter) / 4) }
            // Fusion publishes only estimates newer than its newest: a fix that came out of order adds nothing here.
            guard t > newest else { continue }
            newest = t
            let at = Geodesic.destination(from: start, azimuthDegrees: 60, distanceMeters: 12 * Double(k))
            scenario.fused("car", at, hacc: 4, t: t, speed: 12, speedAcc: 0.3, course: 60, arrival: arrival)
        }
    }

    func testSteadilyLateEarlyAndJitteryDevicesAreNeverLost() {
        var jitter = SeededGenerator(seed: 11)
        let jitters = (0..<120).map { _ in Double.random(in: -2...2, using: &jitter) }
        for (name, delay) in [("30 s late", { (_: Int) in 30.0 }), ("5 s early", { _ in -5.0 }), ("±2 s jitter", { jitters[$0] })] {
            var scenario = MotionScenario()
            drive(&scenario, seconds: 120, delay: delay)
            XCTAssertEqual(scenario.fixes(source: "dr").count, 0, name)
            XCTAssertEqual(scenario.fixes(source: "cache").count, 0, name)
            XCTAssertEqual(scenario.errors.count, 0, name)
            XCTAssertEqual(scenario.logic.healthCounters["outages"] ?? 0, 0, name)
        }
    }

    func testALateDeviceThatStopsIsDeadReckonedOnItsOwnClock() {
        var scenario = MotionScenario()
        drive(&scenario, seconds: 60, delay: { _ in 30 })
        let lastFixT = t0 + 59
        let lastArrival = lastFixT + 30
        // It really stops: the runtime keeps ticking for 20 s of wall time.
        for quarter in 1...80 { scenario.tick(at: lastArrival + Double(quarter) / 4) }
        let dr = scenario.fixes(source: "dr")
        // Noticed after its own cadence (1 s) and the grace (3 s), on its clock: the first fix
        // follows its last one by a second, and none is stamped later than its clock reads.
        XCTAssertEqual(dr.first?.t, lastFixT + 1)
        XCTAssertEqual(dr.count, 20)
        XCTAssertEqual(dr.last!.t, lastFixT + 20, accuracy: 0.01)
        XCTAssertTrue(dr.allSatisfy { $0.t <= lastArrival + 20 - 30 + 0.01 }, "stamped in the device's time, 30 s behind the wall clock")
    }

    func testOneFixThenOneEveryFiveMinutesIsNeverDeadReckoned() {
        var scenario = MotionScenario()
        scenario.activity("me", .walking, t: t0)
        for minute in stride(from: 0, through: 30, by: 5) {
            let t = t0 + Double(minute) * 60
            scenario.fused("me", start, hacc: 20, t: t, speed: 1.3, speedAcc: 0.2, course: 10)
            for second in stride(from: 1.0, to: 300, by: 1) { scenario.tick(at: t + second) }
        }
        XCTAssertEqual(scenario.fixes(source: "dr").count, 0)
        XCTAssertEqual(scenario.fixes(source: "cache").count, 0)
        XCTAssertEqual(scenario.logic.healthCounters["outages"] ?? 0, 0)
        XCTAssertEqual(scenario.logic.healthState, .ok, "a sparse reporter is not unavailable either")
    }

    func testAStationaryOrSlowDeviceThatStopsKeepsItsLastFix() {
        // Activity stationary; and no activity with a speed that is noise around zero.
        for (activity, speed) in [(MotionActivity.stationary, 0.0), (.unknown, 0.3)] {
            var scenario = MotionScenario()
            if activity != .unknown { scenario.activity("bot", activity, t: t0) }
            for second in 0..<30 {
                scenario.fused("bot", start, hacc: 5, t: t0 + Double(second), speed: speed, speedAcc: 0.4)
            }
            for second in 30..<200 { scenario.tick(at: t0 + Double(second)) }
            XCTAssertEqual(scenario.fixes(source: "dr").count, 0, "\(activity)")
            XCTAssertEqual(scenario.fixes(source: "cache").count, 0, "\(activity)")
        }
    }

    func testRhythmAndMotionBothNeededAndARhythmBreakStartsCountingAgain() {
        var scenario = MotionScenario()
        // Four fixes at 1 Hz, moving by speed alone (no activity): one short of a cadence.
        for second in 0..<4 {
            scenario.fused("car", start, hacc: 4, t: t0 + Double(second), speed: 10, speedAcc: 0.3, course: 0)
        }
        for second in 4..<30 { scenario.tick(at: t0 + Double(second)) }
        XCTAssertEqual(scenario.fixes(source: "dr").count, 0)
        // A fifth after a 90 s silence breaks the rhythm rather than completing it.
        scenario.fused("car", start, hacc: 4, t: t0 + 93, speed: 10, speedAcc: 0.3, course: 0)
        for second in 94..<120 { scenario.tick(at: t0 + Double(second)) }
        XCTAssertEqual(scenario.fixes(source: "dr").count, 0)
        // Five in rhythm: now its silence is an outage.
        for second in 120..<125 {
            scenario.fused("car", start, hacc: 4, t: t0 + Double(second), speed: 10, speedAcc: 0.3, course: 0)
        }
        for second in 125..<160 { scenario.tick(at: t0 + Double(second)) }
        XCTAssertEqual(scenario.fixes(source: "dr").first?.t, t0 + 125)
    }
}

import LocusGeofence
import XCTest

/// Hysteresis, debounce, dwell and crossing interpolation: the pieces every decision uses.
final class DecisionTests: XCTestCase {
    func testHysteresisNeedsTheWholeAccuracyDiscOnOneSide() {
        let margin = Hysteresis(factor: 1).marginMeters(hacc: 10)
        XCTAssertEqual(Hysteresis.vote(signedDistanceMeters: -20, marginMeters: margin), .inside)
        XCTAssertEqual(Hysteresis.vote(signedDistanceMeters: -10, marginMeters: margin), .inside)
        XCTAssertEqual(Hysteresis.vote(signedDistanceMeters: -9.9, marginMeters: margin), .unknown)
        XCTAssertEqual(Hysteresis.vote(signedDistanceMeters: 9.9, marginMeters: margin), .unknown)
        XCTAssertEqual(Hysteresis.vote(signedDistanceMeters: 10, marginMeters: margin), .outside)
        XCTAssertEqual(Hysteresis.vote(signedDistanceMeters: 15, marginMeters: Hysteresis(factor: 2).marginMeters(hacc: 10)), .unknown)
    }

    func testDebounceConfirmsOnlyAfterAnUnbrokenRun() {
        var debounce = Debounce()
        XCTAssertNil(debounce.observe(vote: .inside, committed: .outside, fixTime: 0, seconds: 10))
        XCTAssertNil(debounce.observe(vote: .inside, committed: .outside, fixTime: 5, seconds: 10))
        XCTAssertEqual(debounce.observe(vote: .inside, committed: .outside, fixTime: 10, seconds: 10), .inside)
        XCTAssertNil(debounce.candidate)

        // An uncertain fix restarts the wait, and so does one agreeing with the committed state.
        XCTAssertNil(debounce.observe(vote: .inside, committed: .outside, fixTime: 20, seconds: 10))
        XCTAssertNil(debounce.observe(vote: .unknown, committed: .outside, fixTime: 25, seconds: 10))
        XCTAssertNil(debounce.observe(vote: .inside, committed: .outside, fixTime: 31, seconds: 10))
        XCTAssertEqual(debounce.sinceFixTime, 31)
        XCTAssertNil(debounce.observe(vote: .outside, committed: .outside, fixTime: 35, seconds: 10))
        XCTAssertNil(debounce.candidate)
    }

    func testZeroDebounceDecidesOnTheFirstConfidentFix() {
        var debounce = Debounce()
        XCTAssertEqual(debounce.observe(vote: .outside, committed: .inside, fixTime: 3, seconds: 0), .outside)
    }

    func testDwellFiresOncePerStay() {
        var dwell = DwellTimer()
        XCTAssertFalse(dwell.shouldFire(fixTime: 100, dwellSeconds: 30))  // not inside
        dwell.start(at: 100)
        XCTAssertFalse(dwell.shouldFire(fixTime: 129, dwellSeconds: 30))
        XCTAssertTrue(dwell.shouldFire(fixTime: 130, dwellSeconds: 30))
        XCTAssertFalse(dwell.shouldFire(fixTime: 200, dwellSeconds: 30))
        XCTAssertFalse(DwellTimer(enteredAt: 0).shouldFireCopy(fixTime: 1000, dwellSeconds: nil))
        dwell.stop()
        dwell.start(at: 300)
        XCTAssertTrue(dwell.shouldFire(fixTime: 330, dwellSeconds: 30))
    }

    func testCrossingTimeIsInterpolatedBetweenTheStraddlingFixes() throws {
        let time = try XCTUnwrap(CrossingInterpolation.time(from: 10, signedDistance: 6, to: 14, signedDistance: -2))
        XCTAssertEqual(time, 13, accuracy: 1e-12)
        XCTAssertNil(CrossingInterpolation.time(from: 10, signedDistance: 6, to: 14, signedDistance: 2))
        XCTAssertNil(CrossingInterpolation.time(from: 14, signedDistance: 6, to: 10, signedDistance: -2))
    }

    func testAuthorizationGateNeedsAlways() {
        var gate = AuthorizationGate(defaultStatus: nil)
        XCTAssertFalse(gate.allowsMonitoring("app"))
        XCTAssertEqual(gate.status(of: "app"), .notDetermined)
        gate.update("app", status: .whenInUse)
        XCTAssertFalse(gate.allowsMonitoring("app"))
        gate.update("app", status: .always)
        XCTAssertTrue(gate.allowsMonitoring("app"))
        XCTAssertTrue(AuthorizationGate(defaultStatus: .always).allowsMonitoring("anyone"))
    }
}

private extension DwellTimer {
    func shouldFireCopy(fixTime: Double, dwellSeconds: Double?) -> Bool {
        var copy = self
        return copy.shouldFire(fixTime: fixTime, dwellSeconds: dwellSeconds)
    }
}

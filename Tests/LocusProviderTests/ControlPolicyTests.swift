import LocusGeo
import LocusProtocol
import XCTest
@testable import LocusProvider

final class ControlPolicyTests: XCTestCase {
    private func fix(north meters: Double, hacc: Double = 5) -> Location {
        let point = Geodesic.destination(from: Coordinate(lat: 48, lon: 11), azimuthDegrees: 0, distanceMeters: meters)
        return Location(device: "d", source: "gps", lat: point.lat, lon: point.lon, hacc: hacc)
    }

    func testWithoutControlEveryFixIsPublished() {
        var policy = ControlPolicy()
        for second in 0..<5 { XCTAssertEqual(policy.admit(fix(north: 0), t: Double(second)), .publish) }
    }

    func testDistanceFilterMeasuresFromLastPublishedFix() {
        var policy = ControlPolicy()
        policy.apply(Control(device: "d", distanceFilter: 10))
        XCTAssertEqual(policy.admit(fix(north: 0), t: 0), .publish)
        XCTAssertEqual(policy.admit(fix(north: 6), t: 1), .distanceFilter)
        // 12 m from the published fix, though only 6 m from the last one seen.
        XCTAssertEqual(policy.admit(fix(north: 12), t: 2), .publish)
        XCTAssertEqual(policy.admit(fix(north: 21.5), t: 3), .distanceFilter)
        XCTAssertEqual(policy.admit(fix(north: 22.5), t: 4), .publish)
        policy.apply(Control(device: "d", distanceFilter: 0))
        XCTAssertNil(policy.distanceFilterMeters)
        XCTAssertEqual(policy.admit(fix(north: 22.5), t: 5), .publish)
    }

    func testPauseHoldsEverythingUntilResumed() {
        var policy = ControlPolicy()
        policy.apply(Control(device: "d", paused: true))
        XCTAssertEqual(policy.admit(fix(north: 0), t: 0), .paused)
        XCTAssertNil(policy.lastPublished)
        policy.apply(Control(device: "d", paused: false))
        XCTAssertEqual(policy.admit(fix(north: 0), t: 1), .publish)
    }

    func testDesiredAccuracyHoldsCoarseFixesButNeverLongerThanTheSilenceLimit() {
        var policy = ControlPolicy()
        policy.apply(Control(device: "d", desiredAccuracy: 20))
        XCTAssertEqual(policy.admit(fix(north: 0, hacc: 300), t: 0), .desiredAccuracy)
        XCTAssertEqual(policy.admit(fix(north: 0, hacc: 100), t: 5), .desiredAccuracy)
        XCTAssertEqual(policy.admit(fix(north: 0, hacc: 100), t: 10), .publish, "silent for 10 s: publish what there is")
        XCTAssertEqual(policy.admit(fix(north: 0, hacc: 100), t: 11), .desiredAccuracy)
        XCTAssertEqual(policy.admit(fix(north: 0, hacc: 15), t: 12), .publish)
    }

    func testLowPowerThrottlesToOneFixPerInterval() {
        var policy = ControlPolicy()
        policy.apply(Control(device: "d", powerMode: .low))
        let decisions = (0..<25).map { policy.admit(fix(north: Double($0)), t: Double($0)) }
        XCTAssertEqual(decisions.indices.filter { decisions[$0] == .publish }, [0, 10, 20])
        XCTAssertEqual(policy.summary, "distanceFilter=none desiredAccuracy=none paused=false powerMode=low")
    }

    func testAbsentFieldsLeaveSettingsUnchanged() {
        var policy = ControlPolicy()
        policy.apply(Control(device: "d", desiredAccuracy: 50, distanceFilter: 5, paused: true, powerMode: .low))
        policy.apply(Control(device: "d", reason: "just a note"))
        XCTAssertEqual(policy.summary, "distanceFilter=5 desiredAccuracy=50 paused=true powerMode=low")
    }
}

import LocusService
@testable import LocusFusion
import LocusProtocol
import XCTest

/// Bad input is rejected and reported on error.fusion, and never stops other devices.
final class BadInputTests: XCTestCase {
    private func codes(_ out: [Outbound]) -> [String] {
        out.compactMap { if case .error(let report) = $0.body, $0.topic == "error.fusion" { return report.code } else { return nil } }
    }

    func testInvalidValuesAreRejectedAndReported() {
        var h = FusionHarness()
        XCTAssertEqual(codes(h.fix("a", lat: .nan, lon: 0, t: testEpoch)), ["invalidValue"])
        XCTAssertEqual(codes(h.fix("a", lat: 95, lon: 0, t: testEpoch + 1)), ["invalidValue"])
        XCTAssertEqual(codes(h.fix("a", lat: 37, lon: -122, hacc: 0, t: testEpoch + 2)), ["invalidValue"])
        XCTAssertEqual(codes(h.fix("a", lat: 37, lon: -122, hacc: -3, t: testEpoch + 3)), ["invalidValue"])
        XCTAssertEqual(codes(h.fix("a", lat: 37, lon: -122, hacc: .infinity, t: testEpoch + 4)), ["invalidValue"])
        XCTAssertTrue(h.locations(on: "location.fused.a").isEmpty)
        XCTAssertEqual(h.logic.healthCounters["rejected"], 5)
        // The report names the offending message.
        XCTAssertEqual(h.errors().first?.ref, "m1")
        XCTAssertEqual(h.errors().first?.topic, "location.raw.a")
    }

    func testDuplicateIDsAreRejected() {
        var h = FusionHarness()
        h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch, id: "same")
        XCTAssertEqual(codes(h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch + 1, id: "same")), ["duplicateID"])
        XCTAssertEqual(h.locations(on: "location.fused.a").count, 1)
    }

    func testDuplicateFixUnderNewIDIsDroppedSilently() {
        var h = FusionHarness()
        h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch)
        XCTAssertTrue(h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch).isEmpty)
        XCTAssertEqual(h.logic.healthCounters["duplicateFixes"], 1)
    }

    func testOnlyFixesLateBeyondTheLimitAreRefusedWithTheirLag() {
        var configuration = FusionConfiguration()
        configuration.lateLimitSeconds = 3_600
        var h = FusionHarness(configuration: configuration)
        h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch + 5_000)
        // A little late: history, and fused into the estimate with its age counted against it.
        XCTAssertEqual(codes(h.fix("a", lat: 37.40001, lon: -122.1, t: testEpoch + 4_997)), [])
        XCTAssertEqual(h.logic.healthCounters["fix.fusedLate"], 1)
        // Later than the filter's window: history only, not an error.
        XCTAssertEqual(codes(h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch + 4_900)), [])
        XCTAssertEqual(h.locations(on: "location.late.a").count, 2)
        XCTAssertEqual(h.logic.healthCounters["fix.fusedLate"], 1)
        // Beyond the limit: refused, and the message says by how much.
        XCTAssertEqual(codes(h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch)), ["tooLate"])
        XCTAssertEqual(h.errors().last?.message, "fix for a is 5000 s older than its newest (late fixes are kept up to 3600 s)")
    }

    func testImpossibleJumpIsRejectedThenAcceptedWhenConfirmed() {
        var h = FusionHarness()
        h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch)
        // 100 km in one second.
        XCTAssertEqual(codes(h.fix("a", lat: 38.3, lon: -122.1, t: testEpoch + 1)), ["impossibleJump"])
        // The device really is there: the next fixes agree with each other and win after the gate re-anchors.
        for step in 2...5 { XCTAssertEqual(codes(h.fix("a", lat: 38.3, lon: -122.1 + Double(step) * 1e-6, t: testEpoch + Double(step))), []) }
        let last = h.locations(on: "location.fused.a").last
        XCTAssertEqual(last?.lat ?? 0, 38.3, accuracy: 0.001)
    }

    func testTopicMustNameTheDevice() {
        var h = FusionHarness()
        XCTAssertEqual(codes(h.fix("a", lat: 37.4, lon: -122.1, t: testEpoch, topicDevice: "b")), ["deviceMismatch"])
    }

    func testFloodFromOneDeviceDoesNotStopOthers() {
        var h = FusionHarness()
        var floodErrors = 0
        for index in 0..<5_000 {
            floodErrors += codes(h.fix("noisy", lat: 37.4 + Double(index) * 1e-7, lon: -122.1, t: testEpoch)).filter { $0 == "flood" }.count
        }
        XCTAssertGreaterThan(h.logic.healthCounters["rejected.flood"] ?? 0, 4_800)
        XCTAssertEqual(floodErrors, 1, "a flood is reported, not echoed message for message")
        for step in 0..<10 {
            let out = h.fix("quiet", lat: 37.5, lon: -122.2 + Double(step) * 1e-5, t: testEpoch + Double(step))
            XCTAssertTrue(out.contains { $0.topic == "location.fused.quiet" })
        }
    }

    func testBadDeviceDoesNotDisturbAnother() {
        var h = FusionHarness()
        for step in 0..<20 {
            let t = testEpoch + Double(step)
            h.fix("bad", lat: step.isMultiple(of: 2) ? .nan : 95, lon: 0, t: t)
            h.fix("good", lat: 37.4 + Double(step) * 1e-5, lon: -122.1, t: t)
        }
        XCTAssertEqual(h.locations(on: "location.fused.good").count, 20)
        XCTAssertEqual(h.errors().count, 20)
        XCTAssertTrue(h.locations(on: "location.fused.bad").isEmpty)
    }

    func testDeviceLimit() {
        var configuration = FusionConfiguration()
        configuration.maximumDevices = 2
        var h = FusionHarness(configuration: configuration)
        h.fix("one", lat: 37.4, lon: -122.1, t: testEpoch)
        h.fix("two", lat: 37.4, lon: -122.1, t: testEpoch)
        XCTAssertEqual(codes(h.fix("three", lat: 37.4, lon: -122.1, t: testEpoch)), ["tooManyDevices"])
        XCTAssertFalse(h.fix("one", lat: 37.4, lon: -122.1, t: testEpoch + 1).isEmpty)
        XCTAssertEqual(h.logic.counters[DeviceCap.counter], 1, "the counter motion keeps for the same refusal")
    }
}

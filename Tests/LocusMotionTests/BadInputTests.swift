@testable import LocusMotion
import LocusService
import LocusProtocol
import XCTest

/// Bad input is reported on error.motion and changes nothing.
final class BadInputTests: XCTestCase {
    private let t0 = 1_700_000_000.0

    func testUnknownActivityWordIsRejectedByTheDecoder() {
        let text = #"{"v":1,"type":"motion","id":"a","t":1700000000,"src":"x","device":"d","activity":"flying","confidence":"high"}"#
        XCTAssertThrowsError(try MessageCodec.decode(Array(text.utf8)))
    }

    func testMotionForAnUnknownDeviceIsReportedAndIgnored() {
        var configuration = MotionConfiguration()
        configuration.devices = ["truck-7"]
        var scenario = MotionScenario(configuration: configuration)
        scenario.activity("stranger", .automotive, t: t0)
        XCTAssertEqual(scenario.errors.map(\.code), ["unknownDevice"])
        XCTAssertEqual(scenario.errors.first?.ref, "m1")
        XCTAssertTrue(scenario.controls.isEmpty)
        XCTAssertTrue(scenario.logic.devices.isEmpty)
    }

    func testDevicesPastTheCapAreRefusedWithTheSharedCode() {
        var configuration = MotionConfiguration()
        configuration.maximumDevices = 2
        var scenario = MotionScenario(configuration: configuration)
        scenario.activity("one", .walking, t: t0)
        scenario.activity("two", .walking, t: t0)
        scenario.activity("three", .walking, t: t0 + 1)
        scenario.activity("one", .automotive, t: t0 + 2)
        XCTAssertEqual(scenario.errors.map(\.code), ["tooManyDevices"])
        XCTAssertEqual(scenario.errors.first?.message, "more than 2 devices")
        XCTAssertEqual(Set(scenario.logic.devices.keys), ["one", "two"], "known devices carry on; the third is not kept")
        XCTAssertEqual(scenario.logic.counters[DeviceCap.counter], 1, "the counter fusion keeps for the same refusal")
    }

    func testTopicNamingAnotherDeviceIsReported() {
        var scenario = MotionScenario()
        scenario.send(.motion(Motion(device: "a", activity: .walking, confidence: .high)), topic: Topic.motion("b"), t: t0)
        XCTAssertEqual(scenario.errors.map(\.code), ["deviceMismatch"])
        XCTAssertTrue(scenario.controls.isEmpty)
    }

    func testContradictoryControlIsReportedAndIgnored() {
        var scenario = MotionScenario()
        scenario.activity("d", .walking, t: t0)
        scenario.send(.control(Control(device: "d", desiredAccuracy: 3, powerMode: .low)), topic: Topic.control("d"), t: t0 + 1, src: "cli/main")
        scenario.send(.control(Control(device: "d", distanceFilter: 1, powerMode: .low)), topic: Topic.control("d"), t: t0 + 2, src: "cli/main")
        XCTAssertEqual(scenario.errors.map(\.code), ["contradictoryControl", "contradictoryControl"])
        XCTAssertEqual(scenario.controls.map(\.powerMode), [.normal], "still normal power")
    }
}

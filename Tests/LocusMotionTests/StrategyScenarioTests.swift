import LocusGeo
import LocusMotion
import LocusProtocol
import XCTest

/// Activity changes steer the device once each; stationary pauses; low power coarsens.
final class StrategyScenarioTests: XCTestCase {
    private let t0 = 1_700_000_000.0

    func testActivityChangesPublishEachControlOnce() {
        var scenario = MotionScenario()
        // Repeated reports of the same activity publish nothing new.
        let timeline: [(Double, MotionActivity)] = [
            (0, .walking), (1, .walking), (2, .walking), (10, .automotive), (11, .automotive), (20, .running),
            (30, .stationary), (40, .stationary), (200, .stationary), (210, .walking), (211, .walking),
        ]
        for (offset, activity) in timeline { scenario.activity("d", activity, t: t0 + offset) }
        let controls = scenario.controls
        // running → stationary keeps the same settings, so only the pause follows it.
        XCTAssertEqual(controls.map(\.distanceFilter), [10, 5, 10, 10, 10])
        XCTAssertEqual(controls.map(\.desiredAccuracy), [10, 5, 10, 10, 10])
        XCTAssertEqual(controls.map(\.paused), [false, false, false, true, false])
        XCTAssertTrue(controls.allSatisfy { $0.powerMode == .normal && $0.reason != nil && $0.device == "d" })
        XCTAssertEqual(controls[3].reason, "stationary for 170 s: paused")
        let pauseTime = scenario.output.first { if case .control(let c) = $0.body { return c.paused == true } else { return false } }?.t
        XCTAssertEqual(pauseTime, t0 + 200, "paused at the first message 120 s after stationary began")
        XCTAssertEqual(controls[4].reason, "moving again (walking): resumed")
    }

    func testLowConfidenceDoesNotChangeTheStrategy() {
        var scenario = MotionScenario()
        scenario.activity("d", .walking, t: t0)
        scenario.activity("d", .automotive, confidence: .low, t: t0 + 1)
        XCTAssertEqual(scenario.controls.count, 1)
        XCTAssertEqual(scenario.logic.healthCounters["lowConfidence"], 1)
    }

    func testLowPowerFromConfigurationAndFromControl() {
        var configuration = MotionConfiguration()
        configuration.lowPower = true
        var scenario = MotionScenario(configuration: configuration)
        scenario.activity("d", .automotive, t: t0)
        XCTAssertEqual(scenario.controls.last?.distanceFilter, 20)
        XCTAssertEqual(scenario.controls.last?.desiredAccuracy, 100)
        XCTAssertEqual(scenario.controls.last?.powerMode, .low)

        var normal = MotionScenario()
        normal.activity("d", .walking, t: t0)
        normal.send(.control(Control(device: "d", powerMode: .low)), topic: Topic.control("d"), t: t0 + 1, src: "cli/main")
        XCTAssertEqual(normal.controls.map(\.powerMode), [.normal, .low])
        XCTAssertEqual(normal.controls.last?.distanceFilter, 20)
        // Its own control coming back over the bus changes nothing.
        normal.send(.control(Control(device: "d", powerMode: .normal)), topic: Topic.control("d"), t: t0 + 2, src: "motion/main")
        XCTAssertEqual(normal.controls.count, 2)
    }

    func testPowerSupplyReading() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("locus-power-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ supply: String, _ values: [String: String]) throws {
            let directory = root.appendingPathComponent(supply)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, value) in values { try (value + "\n").write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        }
        XCTAssertNil(PowerSupply(root: root.path).isLowPower())
        try write("BAT0", ["type": "Battery", "status": "Discharging", "capacity": "15"])
        XCTAssertEqual(PowerSupply(root: root.path).isLowPower(), true)
        try write("AC", ["type": "Mains", "online": "1"])
        XCTAssertEqual(PowerSupply(root: root.path).isLowPower(), false)
        try write("AC", ["type": "Mains", "online": "0"])
        try write("BAT0", ["type": "Battery", "status": "Discharging", "capacity": "55"])
        XCTAssertEqual(PowerSupply(root: root.path).isLowPower(), false)
    }
}

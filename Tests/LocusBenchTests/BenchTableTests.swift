import XCTest
@testable import LocusBench

final class BenchTableTests: XCTestCase {
    func testRatioGoalIsJudgedAgainstThePeer() {
        let fast = BenchRow(name: "codec decode", ours: 1_200_000, peer: 200_000, peerName: "Foundation", unit: "msg/s",
                            goal: .ratioAtLeast(5))
        XCTAssertEqual(fast.ratio, 6)
        XCTAssertEqual(fast.met, true)
        let slow = BenchRow(name: "codec decode", ours: 800_000, peer: 200_000, peerName: "Foundation", unit: "msg/s",
                            goal: .ratioAtLeast(5))
        XCTAssertEqual(slow.met, false)
        XCTAssertEqual(slow.shortfall ?? 0, 1.25, accuracy: 1e-12)
    }

    func testRatioGoalWithoutPeerCannotBeJudged() {
        let row = BenchRow(name: "NMEA decode", ours: 1e6, peerName: "gpsdecode (not installed)", unit: "sentences/s",
                           goal: .ratioAtLeast(2))
        XCTAssertNil(row.ratio)
        XCTAssertNil(row.met)
        XCTAssertEqual(BenchTable.line(row), "| NMEA decode | 1.00 M sentences/s | gpsdecode (not installed) | — | — | ≥ 2.00× | — |")
    }

    func testAbsoluteGoalsUseOurFigureInBothDirections() {
        let latency = BenchRow(name: "p99", ours: 7.5, peer: 0.2, peerName: "bus hop", unit: "ms", goal: .atMost(5))
        XCTAssertEqual(latency.met, false)
        XCTAssertEqual(latency.shortfall ?? 0, 1.5, accuracy: 1e-12)
        let memory = BenchRow(name: "rss", ours: 12, peer: 3, peerName: "gpsd", unit: "MB", goal: .atMost(20))
        XCTAssertEqual(memory.met, true)
        let kernel = BenchRow(name: "kernel", ours: 3e6, peerName: "shapely", unit: "points/s", goal: .atLeast(2e6))
        XCTAssertEqual(kernel.met, true)
        let error = BenchRow(name: "rmse", ours: 1, peer: 4, peerName: "raw", unit: "m", goal: .ratioAtMost(0.8))
        XCTAssertEqual(error.met, true)
        XCTAssertNil(BenchRow(name: "context", ours: 1, peerName: "x", unit: "m", goal: .none).met)
    }

    func testNonFiniteFigureNeverMeetsItsGoal() {
        let row = BenchRow(name: "p99", ours: .nan, peerName: "bus hop", unit: "ms", goal: .atMost(5))
        XCTAssertEqual(row.met, false)
    }

    func testWorstRowIsTheFurthestFromItsGoal() {
        let rows = [
            BenchRow(name: "a", ours: 10, peer: 1, peerName: "p", unit: "x", goal: .ratioAtLeast(5)),   // met, 0.5
            BenchRow(name: "b", ours: 30, peerName: "p", unit: "MB", goal: .atMost(20)),                // missed, 1.5
            BenchRow(name: "c", ours: 3, peerName: "p", unit: "ms", goal: .atMost(5)),                  // met, 0.6
            BenchRow(name: "d", ours: 3, peerName: "p", unit: "m", goal: .none),
        ]
        XCTAssertEqual(BenchTable.worst(rows)?.name, "b")
    }

    func testRenderedTableHasOneLinePerRowUnderTheHeader() {
        let rows = [
            BenchRow(name: "bus | NULL", ours: 900_000, peer: 1_500_000, peerName: "raw proxy", unit: "msg/s", goal: .ratioAtLeast(0.6)),
            BenchRow(name: "geofence", ours: 2_500_000, peer: 400_000, peerName: "shapely", unit: "points/s", goal: .atLeast(2e6)),
        ]
        let lines = BenchTable.render(rows).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines[2], "| bus \\| NULL | 900 k msg/s | raw proxy | 1.50 M msg/s | 0.600× | ≥ 0.600× | yes |")
        XCTAssertTrue(lines[3].hasSuffix("| 6.25× | ≥ 2.00 M points/s | yes |"), lines[3])
    }

    func testRecorderHandsRowsOverOnce() {
        let recorder = BenchRecorder()
        recorder.record(BenchRow(name: "x", ours: 1, peerName: "p", unit: "u", goal: .none))
        XCTAssertEqual(recorder.take().map(\.name), ["x"])
        XCTAssertTrue(recorder.take().isEmpty)
    }
}

final class BenchShortfallTests: XCTestCase {
    func testZeroCostMeetsAnUpperBoundWithRoom() {
        let idle = BenchRow(name: "cpu", ours: 0, peerName: "gpsd", unit: "%", goal: .atMost(1))
        XCTAssertEqual(idle.shortfall, 0)
        let none = BenchRow(name: "rate", ours: 0, peerName: "p", unit: "msg/s", goal: .atLeast(1))
        XCTAssertEqual(none.shortfall, .infinity)
    }
}

import LocusService
import XCTest

/// The per-device clock: a steady lag is learned at once, jitter becomes spread, one stray
/// sample barely moves it, and a real change of lag is followed.
final class DeviceClockTests: XCTestCase {
    func testSteadyLagIsTheOffsetAndDeviceTimeRemovesIt() {
        var clock = DeviceClock()
        XCTAssertEqual(clock.deviceTime(at: 1_000), 1_000, "without a fix, the local clock")
        for k in 0..<60 { clock.observe(fixTime: 1_000 + Double(k), arrival: 1_030 + Double(k)) }
        XCTAssertEqual(clock.offsetSeconds!, 30, accuracy: 1e-9)
        XCTAssertEqual(clock.spreadSeconds, 0, accuracy: 1e-9)
        XCTAssertEqual(clock.deviceTime(at: 1_090), 1_060, accuracy: 1e-9)
        XCTAssertEqual(clock.samples, 60)
    }

    func testJitterBecomesSpreadAroundTheMeanOffset() {
        var clock = DeviceClock()
        var state: UInt64 = 42
        for k in 0..<600 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407  // seeded, so the test repeats
            let uniform = Double(state >> 11) / Double(1 << 53)
            let t = Double(k)
            clock.observe(fixTime: t, arrival: t - 5 + (uniform * 4 - 2))
        }
        XCTAssertEqual(clock.offsetSeconds!, -5, accuracy: 0.8)
        // The mean absolute deviation of a uniform ±2 s jitter is 1 s.
        XCTAssertEqual(clock.spreadSeconds, 1, accuracy: 0.5)
        XCTAssertEqual(clock.toleranceSeconds, 4 * clock.spreadSeconds, accuracy: 1e-12)
    }

    func testOneBufferedFixBarelyMovesItAndARealChangeIsFollowed() {
        var clock = DeviceClock()
        for k in 0..<60 { clock.observe(fixTime: Double(k), arrival: Double(k) + 0.2) }
        clock.observe(fixTime: 0, arrival: 300)
        XCTAssertLessThan(clock.offsetSeconds!, 0.2 + 0.2, "one stray sample moves it by at most an eighth of its limit")
        for k in 61..<121 { clock.observe(fixTime: Double(k), arrival: Double(k) + 0.2) }
        XCTAssertEqual(clock.offsetSeconds!, 0.2, accuracy: 0.05)
        // The device starts to upload 30 s late and stays so.
        for k in 121..<181 { clock.observe(fixTime: Double(k), arrival: Double(k) + 30) }
        XCTAssertEqual(clock.offsetSeconds!, 30, accuracy: 1)
    }

    func testNonFiniteSamplesAreIgnored() {
        var clock = DeviceClock()
        clock.observe(fixTime: .nan, arrival: 10)
        clock.observe(fixTime: 0, arrival: .infinity)
        XCTAssertNil(clock.offsetSeconds)
        XCTAssertEqual(clock.samples, 0)
    }
}

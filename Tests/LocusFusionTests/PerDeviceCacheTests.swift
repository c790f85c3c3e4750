import LocusFusion
import LocusGeo
import LocusProtocol
import XCTest

/// What fusion keeps per device to spare work per fix gives what computing afresh gives.
final class PerDeviceCacheTests: XCTestCase {
    private let secret = Array("a test secret of thirty-two bytes".utf8)

    func testKeptApproxOffsetsGiveTheSamePointsAsHashingEachTime() {
        let approx = ApproximateLocation(secret: secret, cellSizeMeters: 500, periodSeconds: 60)
        var random = SeededGenerator(seed: 3)
        for device in ["phone", "truck-7", "車"] {
            var offsets = approx.offsets(device: device)
            var t = testEpoch
            var here = testBase
            for _ in 0..<2_000 {
                // Moving and jumping about, across cells and periods, time only forward.
                t += Double.random(in: 0...20, using: &random)
                here = offset(here, east: Double.random(in: -300...300, using: &random), north: Double.random(in: -300...300, using: &random))
                XCTAssertEqual(approx.reduce(here, t: t, offsets: &offsets), approx.reduce(here, device: device, t: t))
            }
        }
    }

    func testRecentFixesRememberTheLastEightExactly() {
        var recent = RecentFixes()
        func key(_ n: Int, source: String = "gps") -> RecentFixes.Key {
            RecentFixes.Key(source: source, t: Double(n), lat: 31 + Double(n) * 1e-5, lon: 121)
        }
        for n in 0..<20 { XCTAssertFalse(recent.isRepeat(key(n))) }
        for n in 12..<20 { XCTAssertTrue(recent.isRepeat(key(n)), "the last eight are remembered") }
        XCTAssertFalse(recent.isRepeat(key(11)), "the ninth newest is forgotten")
        XCTAssertFalse(recent.isRepeat(key(19, source: "wifi")), "the source is part of the fix")
    }
}

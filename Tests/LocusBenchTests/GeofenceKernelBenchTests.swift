@testable import LocusBench
import Foundation
import LocusGeo
import XCTest

final class GeofenceKernelBenchTests: XCTestCase {
    /// The bench counts the same containments as a brute-force exact scan of its scene.
    func testHitsMatchBruteForce() {
        let seed: UInt64 = 41
        let result = GeofenceKernelBench.run(circles: 300, points: 3_000, seed: seed)
        // Rebuild the same scene from the same seed and count with the exact geodesic only.
        var random = SeededGenerator(seed: seed)
        let plane = LocalTangentPlane(origin: Coordinate(lat: 45, lon: 7))
        let half = GeofenceKernelBench.sceneSideMeters / 2
        func randomPoint() -> Coordinate {
            plane.unproject(east: Double.random(in: -half...half, using: &random), north: Double.random(in: -half...half, using: &random))
        }
        var circles: [(Coordinate, Double)] = []
        for _ in 0..<300 { circles.append((randomPoint(), Double.random(in: 100...1000, using: &random))) }
        let points = (0..<3_000).map { _ in randomPoint() }
        var expected = 0
        for p in points {
            for (center, radius) in circles where Geodesic.distance(center, p) <= radius { expected += 1 }
        }
        XCTAssertEqual(result.hits, expected)
        XCTAssertGreaterThan(expected, 0)
        XCTAssertGreaterThan(result.pointsPerSecond, 0)
    }

    func testSeededGeneratorRepeats() {
        var a = SeededGenerator(seed: 5), b = SeededGenerator(seed: 5), c = SeededGenerator(seed: 6)
        let first = (0..<4).map { _ in a.next() }
        XCTAssertEqual(first, (0..<4).map { _ in b.next() })
        XCTAssertNotEqual(first, (0..<4).map { _ in c.next() })
        // SplitMix64's published first output for seed 0.
        var zero = SeededGenerator(seed: 0)
        XCTAssertEqual(zero.next(), 0xE220_A839_7B1D_CDAF)
    }

    /// The full-size figure: run with LOCUS_BENCH=1 on a release build, e.g.
    /// `LOCUS_BENCH=1 swift test -c release --filter GeofenceKernelBenchTests`.
    func testFullSizeThroughput() throws {
        guard ProcessInfo.processInfo.environment["LOCUS_BENCH"] == "1" else {
            throw XCTSkip("set LOCUS_BENCH=1 (release build) to measure 10 000 circles × 1 000 000 points")
        }
        let result = GeofenceKernelBench.run(circles: 10_000, points: 1_000_000, seed: 1)
        print(String(format: "GeofenceKernelBench: 10000 circles, 1000000 points: %.0f points/s, %d hits", result.pointsPerSecond, result.hits))
        XCTAssertGreaterThan(result.hits, 1_000_000)
    }
}

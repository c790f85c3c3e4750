@testable import LocusBench
import LocusFusion
import XCTest

/// Our fusion of the phone's GPS and network fixes beside Android's fused provider.
final class Pixel4EvaluationTests: XCTestCase {
    func testDriveAgainstAndroidFusedProvider() throws {
        let log = try AndroidFixLog(contentsOf: DataPaths.pixel4Log)
        let truth = try ReferenceTrajectory(contentsOf: DataPaths.pixel4Truth)
        XCTAssertGreaterThan(truth.points.count, 100)
        let result = Pixel4Evaluation.run(log: log, truth: truth)
        print(String(format: "Pixel4: ours p50 %.2f p95 %.2f (n=%d) | Android FLP p50 %.2f p95 %.2f (n=%d) | raw GPS p50 %.2f (n=%d)",
                     result.ours.p50, result.ours.p95, result.ours.count, result.android.p50, result.android.p95, result.android.count,
                     result.rawGPS.p50, result.rawGPS.count))
        XCTAssertGreaterThan(result.inputFixes, 0)
        XCTAssertGreaterThan(result.ours.count, 0, "fused fixes inside the reference span")
        XCTAssertGreaterThan(result.android.count, 0)
        // Every fused fix is a real estimate near the drive, not a stray point.
        XCTAssertLessThan(result.ours.p95, 50)
        // The goal: ours no worse than Android's fused provider.
        XCTAssertLessThanOrEqual(result.ours.p50, result.android.p50 * 1.1 + 0.5)
    }

    func testReferenceInterpolation() throws {
        let truth = try ReferenceTrajectory(contentsOf: DataPaths.pixel4Truth)
        let first = truth.points[0], second = truth.points[1]
        let middle = try XCTUnwrap(truth.position(at: (first.t + second.t) / 2))
        XCTAssertEqual(middle.lat, (first.coordinate.lat + second.coordinate.lat) / 2, accuracy: 1e-12)
        XCTAssertNil(truth.position(at: first.t - 1))
    }
}

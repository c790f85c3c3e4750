@testable import LocusBench
import LocusFusion
import XCTest

/// The issue's acceptance figures on the KITTI drive with seeded noise, averaged over eight seeds.
final class KittiEvaluationTests: XCTestCase {
    private func check(_ scenario: NoiseModel.Scenario, ratioLimit: Double, noise: NoiseModel = NoiseModel(), label: String = "") throws {
        let track = try KittiTrack(contentsOf: DataPaths.kitti)
        XCTAssertGreaterThan(track.samples.count, 400)
        let result = KittiEvaluation.averaged(track: track, scenario: scenario, seeds: KittiEvaluation.standardSeeds, noise: noise)
        for row in result.rows {
            XCTAssertEqual(row.raw.count, track.samples.count)
            XCTAssertGreaterThan(row.fused.count, track.samples.count * 9 / 10)
        }
        let ratios = result.rows.map { String(format: "%.3f", $0.ratio) }.joined(separator: " ")
        print(String(format: "%@%@: mean ratio %.3f, mean coverage %.1f%%; per seed: %@", scenario.rawValue, label, result.ratio,
                     result.coverage * 100, ratios))
        XCTAssertLessThanOrEqual(result.ratio, ratioLimit)
        XCTAssertGreaterThanOrEqual(result.coverage, 0.55)
        XCTAssertLessThanOrEqual(result.coverage, 0.85)
    }

    /// Fixes carry position and a Doppler velocity (speed, course, speedAcc 0.5 m/s), as GNSS
    /// receivers report them; the issue's goals.
    func testWhiteNoise() throws { try check(.white, ratioLimit: 0.80) }
    func testOutliers() throws { try check(.outliers, ratioLimit: 0.45) }
    func testCorrelatedBias() throws { try check(.bias, ratioLimit: 1.0) }

    /// Position-only fixes (no speed): a causal filter on this city drive (median acceleration
    /// 0.9 m/s² at 1 Hz) reaches about 0.81, so the bound here guards against regressions, not
    /// the goal; coverage must stay honest either way (docs/fusion.md, "Evaluation").
    func testWhiteNoisePositionOnly() throws {
        var noise = NoiseModel()
        noise.dopplerSigmaMetersPerSecond = nil
        try check(.white, ratioLimit: 0.82, noise: noise, label: " (position only)")
    }

    func testBiasPositionOnly() throws {
        var noise = NoiseModel()
        noise.dopplerSigmaMetersPerSecond = nil
        try check(.bias, ratioLimit: 1.0, noise: noise, label: " (position only)")
    }

    /// Same seed, same figures: the evaluation is deterministic.
    func testDeterministic() throws {
        let track = try KittiTrack(contentsOf: DataPaths.kitti)
        let a = KittiEvaluation.run(track: track, scenario: .outliers, seed: 42)
        let b = KittiEvaluation.run(track: track, scenario: .outliers, seed: 42)
        XCTAssertEqual(a.fused, b.fused)
        XCTAssertEqual(a.raw, b.raw)
    }
}

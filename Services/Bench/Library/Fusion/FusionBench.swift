import Foundation
import LocusFusion

/// `locus bench fusion`: accuracy, not speed. The KITTI drive with seeded noise (white,
/// outliers, correlated bias) through the fusion logic, and the Pixel 4 drive's GPS and
/// network fixes beside Android's own fused provider, both against reference trajectories.
enum FusionBench {
    static func run(_ arguments: [String]) -> Int32 {
        var truthDirectory = ProcessInfo.processInfo.environment["LOCUS_TRUTH_DATA"] ?? "../shared/data/truth"
        var seeds = KittiEvaluation.standardSeeds
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--data": truthDirectory = value ?? truthDirectory; index += 1
            case "--seeds": seeds = Array(1...UInt64(max(1, value.flatMap(Int.init) ?? seeds.count))); index += 1
            case "--help", "-h":
                print("usage: locus bench fusion [--data TRUTH_DIR] [--seeds N]")
                return 0
            default:
                FileHandle.standardError.write(Data("locus bench fusion: unknown argument \(arguments[index])\n".utf8))
                return 64
            }
            index += 1
        }
        guard let track = try? KittiTrack(contentsOf: truthDirectory + "/KittiGps_converted.txt") else {
            FileHandle.standardError.write(Data("locus bench fusion: cannot read \(truthDirectory)/KittiGps_converted.txt\n".utf8))
            return 66
        }
        print("KITTI drive, \(track.samples.count) fixes, mean over \(seeds.count) seeds (goals: ratio ≤ 0.80 / 0.45 / 1.0, coverage 55–85 %)\n")
        print("| noise | RMSE raw (m) | RMSE fused (m) | ratio | goal | coverage of hacc |")
        print("|---|---:|---:|---:|---:|---:|")
        let goals: [NoiseModel.Scenario: Double] = [.white: 0.80, .outliers: 0.45, .bias: 1.0]
        var met = true
        for scenario in NoiseModel.Scenario.allCases {
            let result = KittiEvaluation.averaged(track: track, scenario: scenario, seeds: seeds)
            let rawRMSE = result.rows.reduce(0) { $0 + $1.raw.rmse } / Double(result.rows.count)
            let fusedRMSE = result.rows.reduce(0) { $0 + $1.fused.rmse } / Double(result.rows.count)
            let goal = goals[scenario] ?? 1
            met = met && result.ratio <= goal && (0.55...0.85).contains(result.coverage)
            BenchRecorder.shared.record(BenchRow(name: "fusion KITTI \(scenario.rawValue) noise, RMSE", ours: fusedRMSE, peer: rawRMSE,
                                                 peerName: "raw fixes", unit: "m", goal: .ratioAtMost(goal)))
            print(String(format: "| %@ | %.2f | %.2f | %.3f | ≤ %.2f | %.1f %% |", scenario.rawValue, rawRMSE, fusedRMSE, result.ratio, goal,
                         result.coverage * 100))
        }
        print(met ? "\nall KITTI goals met" : "\nnot every KITTI goal met (see docs/fusion.md)")

        if let log = try? AndroidFixLog(contentsOf: truthDirectory + "/google_decimeter_2021_Pixel4_GnssLog.txt"),
           let truth = try? ReferenceTrajectory(contentsOf: truthDirectory + "/google_decimeter_2021_Pixel4_ground_truth.csv") {
            let result = Pixel4Evaluation.run(log: log, truth: truth)
            print("\nPixel 4 drive (\(result.inputFixes) GPS/NLP fixes in, \(result.unreadableLines) unreadable lines)\n")
            print("| estimate | fixes scored | p50 (m) | p95 (m) | coverage of hacc |")
            print("|---|---:|---:|---:|---:|")
            BenchRecorder.shared.record(BenchRow(name: "fusion Pixel 4 drive, p95 error", ours: result.ours.p95, peer: result.android.p95,
                                                 peerName: "Android FLP", unit: "m", goal: .none))
            for (name, stats) in [("Locus fused (GPS + NLP)", result.ours), ("Android FLP", result.android), ("raw GPS", result.rawGPS)] {
                print(String(format: "| %@ | %d | %.2f | %.2f | %.0f %% |", name, stats.count, stats.p50, stats.p95, stats.coverage * 100))
            }
        } else {
            print("\nPixel 4 files not found in \(truthDirectory): skipped")
        }
        return 0
    }
}

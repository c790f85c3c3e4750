import Foundation
import LocusFusion

/// The tables `locus bench network` prints for the simulated city, and the rows it records
/// for `locus bench all`.
enum NetworkBenchReport {
    /// Goals: 60–80 % of truths inside `hacc`, p50 ≤ 40 m with ≥ 3 known access points heard,
    /// moved access points left out (≥ 90 % of their stale sightings).
    static let coverageGoal = 0.60...0.80
    static let p50Goal = 40.0
    static let excludedGoal = 0.90

    /// Prints the tables; returns whether every goal was met.
    static func print(_ results: [NetworkCityRun.Result]) -> Bool {
        guard let first = results.first else { return false }
        let plan = first.plan
        Swift.print(String(format: "Simulated city: %.1f × %.1f km, %d access points (%.0f %% move half-way, %.0f %% _nomap), %d LTE cells; "
                           + "drives of %.1f km at 10 m/s, a scan every 2 s; %d seeds\n",
                           plan.sizeMeters / 1000, plan.sizeMeters / 1000, plan.accessPoints.count, plan.configuration.movedShare * 100,
                           plan.configuration.optedOutShare * 100, plan.cells.count, first.routeMeters / 1000, results.count))
        Swift.print("| scenario | scans | with fix | p50 (m) | p95 (m) | inside hacc | p50, ≥ 3 APs (m) | plain mean p50 (m) | moved APs left out |")
        Swift.print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        var met = true
        let rows: [(String, (NetworkCityRun.Result) -> NetworkCityRun.Score, Bool)] = [
            ("Wi-Fi, database from the plan", { $0.planWifi }, true),
            ("Wi-Fi, learned on drive 1, drive 2 without GNSS", { $0.learnedWifi }, true),
            ("cell, exported database", { $0.planCell }, false),
            ("cell, learned on drive 1, drive 2 without GNSS", { $0.learnedCell }, false),
        ]
        for (name, pick, scored) in rows {
            var all = NetworkCityRun.Score()
            for result in results {
                let score = pick(result)
                all.scans += score.scans
                all.fixes += score.fixes
                all.errors += score.errors
                all.radii += score.radii
                all.errorsWithThree += score.errorsWithThree
                all.naiveErrors += score.naiveErrors
                all.staleMovedHeard += score.staleMovedHeard
                all.staleMovedUsed += score.staleMovedUsed
            }
            let stats = all.statistics
            let excluded = all.staleExcluded
            Swift.print(String(format: "| %@ | %d | %.0f %% | %.1f | %.1f | %.1f %% | %@ | %.1f | %@ |", name, all.scans,
                               100 * Double(all.fixes) / Double(max(1, all.scans)), stats.p50, stats.p95, stats.coverage * 100,
                               scored ? String(format: "%.1f", all.withThree.p50) : "—", all.naive.p50,
                               excluded.isNaN ? "—" : String(format: "%.1f %% of %d", excluded * 100, all.staleMovedHeard)))
            guard scored else { continue }
            let rowMet = coverageGoal.contains(stats.coverage) && all.withThree.p50 <= p50Goal && (excluded.isNaN || excluded >= excludedGoal)
            met = met && rowMet
            BenchRecorder.shared.record(BenchRow(name: "network \(name), p50 error", ours: stats.p50, peer: all.naive.p50,
                                                 peerName: "plain mean of known APs", unit: "m", goal: .atMost(p50Goal)))
            BenchRecorder.shared.record(BenchRow(name: "network \(name), truth inside hacc", ours: stats.coverage * 100,
                                                 peerName: "goal 60–80 %", unit: "%", goal: .none))
        }
        let counters = results.reduce(into: [String: Int]()) { all, result in
            for (key, value) in result.learningCounters { all[key, default: 0] += value }
        }
        let learned = results.reduce(0) { $0 + $1.learnedAccessPoints }
        let mobile = results.reduce(0) { $0 + $1.mobileBeacons }
        Swift.print("\nLearning on drive 1 (all seeds): \(learned) access points stored, \(counters["learn.moved"] ?? 0) moves detected, "
                    + "\(mobile) beacons marked mobile, \(counters["optedOut"] ?? 0) opted-out sightings never stored")
        Swift.print(String(format: "Goals: inside hacc %.0f–%.0f %%, p50 ≤ %.0f m with ≥ 3 known APs, ≥ %.0f %% of moved APs' stale sightings left out: %@",
                           coverageGoal.lowerBound * 100, coverageGoal.upperBound * 100, p50Goal, excludedGoal * 100, met ? "met" : "NOT met"))
        return met
    }
}

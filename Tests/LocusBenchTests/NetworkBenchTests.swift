import XCTest
@testable import LocusBench
@testable import LocusProvider

/// The simulated city behind `locus bench network`, on one scored seed and a shorter drive:
/// the goals the benchmark prints must hold, and the city must be what the docs say.
final class NetworkBenchTests: XCTestCase {
    func testOneSeededCityMeetsTheGoals() throws {
        var options = NetworkCityRun.Options()
        options.seed = 2
        options.routeMeters = 6_000
        let result = try NetworkCityRun.run(options)
        for (name, score) in [("plan", result.planWifi), ("learned, drive 2", result.learnedWifi)] {
            let stats = score.statistics
            XCTAssertEqual(score.fixes, score.scans, "\(name): every scan placed")
            XCTAssertTrue((0.55...0.85).contains(stats.coverage), "\(name): truth inside hacc \(stats.coverage)")
            XCTAssertLessThanOrEqual(score.withThree.p50, NetworkBenchReport.p50Goal, name)
            XCTAssertLessThan(stats.p50, score.naive.p50, "\(name): better than the plain mean")
            XCTAssertGreaterThan(score.staleMovedHeard, 0, "\(name): moved access points were heard where the database did not have them")
            XCTAssertGreaterThanOrEqual(score.staleExcluded, NetworkBenchReport.excludedGoal, name)
        }
        XCTAssertGreaterThan(result.learningCounters["learn.moved"] ?? 0, 0, "moves found while learning")
        XCTAssertGreaterThan(result.learningCounters["optedOut"] ?? 0, 0)
        XCTAssertGreaterThan(result.mobileBeacons, 0, "the bus's hotspot is found to move")
        let cell = result.learnedCell.statistics
        XCTAssertTrue((0.5...0.9).contains(cell.coverage), "cell: truth inside hacc \(cell.coverage)")
    }

    func testTheCityIsSeededAndHoldsWhatTheDocsSay() {
        let a = CityPlan(), b = CityPlan()
        XCTAssertEqual(a.accessPoints.map(\.bssid), b.accessPoints.map(\.bssid))
        XCTAssertEqual(a.accessPoints.count, b.accessPoints.count)
        let perBlock = Double(a.accessPoints.count) / Double(a.configuration.blocks * a.configuration.blocks)
        XCTAssertEqual(perBlock, 25, accuracy: 1.5)
        let moved = Double(a.accessPoints.filter { $0.movedTo != nil }.count) / Double(a.accessPoints.count)
        XCTAssertEqual(moved, 0.05, accuracy: 0.01)
        XCTAssertTrue(a.accessPoints.allSatisfy { !$0.bssid.isLocallyAdministered && !$0.bssid.isMulticast })
        XCTAssertTrue(CityRadio.phoneHotspot.isLocallyAdministered)
        XCTAssertFalse(CityRadio.busHotspot.isLocallyAdministered)
        var configuration = CityPlan.Configuration()
        configuration.seed = 9
        XCTAssertNotEqual(CityPlan(configuration).accessPoints.first?.bssid, a.accessPoints.first?.bssid)
    }
}

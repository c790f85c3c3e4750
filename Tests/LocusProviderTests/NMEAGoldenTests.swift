import Foundation
import XCTest
@testable import LocusProvider

/// Decodes every gpsd regression log and compares with gpsd's golden TPVs, beside
/// the same figures for Debian's `gpsdecode` on the same logs. Every log must be at
/// least as good as `gpsdecode` on every figure, with no allowance for boundary epochs.
final class NMEAGoldenTests: XCTestCase {
    func testDecoderMatchesGpsdGoldenEpochs() throws {
        guard let gpsdecode = NMEALogFixtures.gpsdecodePath else {
            XCTFail(NMEALogFixtures.installHint)
            return
        }
        let logs = try NMEALogFixtures.logs()
        XCTAssertGreaterThan(logs.count, 50, "expected gpsd's regression logs in \(NMEALogFixtures.directory.path)")

        var oursTotal = EpochComparison.zero
        var theirsTotal = EpochComparison.zero
        var report = "| log | gpsd epochs | ours matched % | ours 1e-7° % | ours 3 m % | ours extra % | gpsdecode matched % | gpsdecode 1e-7° % | gpsdecode 3 m % | gpsdecode extra % |\n"
        report += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        var worseThanGpsdecode: [String] = []

        for log in logs {
            let chk = try String(contentsOf: log.appendingPathExtension("chk"), encoding: .utf8)
            let golden = GoldenTPV.positions(inJSONLines: chk)
            let untimed = GoldenTPV.untimedPositions(inJSONLines: chk)
            let ourFixes = NMEALogFixtures.timedPositions(NMEALogFixtures.decode(try Data(contentsOf: log)).fixes)
            let ours = EpochComparison(golden: golden, candidate: ourFixes, goldenUntimed: untimed)
            let theirFixes = GoldenTPV.positions(inJSONLines: try NMEALogFixtures.runGpsdecode(gpsdecode, on: log))
            let theirs = EpochComparison(golden: golden, candidate: theirFixes, goldenUntimed: untimed)
            oursTotal = oursTotal + ours
            theirsTotal = theirsTotal + theirs
            report += row(log.lastPathComponent, ours, theirs)
            let behind = ours.figuresBehind(theirs)
            if !behind.isEmpty { worseThanGpsdecode.append("\(log.lastPathComponent): \(behind.joined(separator: ", "))") }
        }
        report += row("**all**", oursTotal, theirsTotal)
        print(report)
        print("matched epochs whose date also agrees with gpsd: ours \(oursTotal.sameDate)/\(oursTotal.matched), gpsdecode \(theirsTotal.sameDate)/\(theirsTotal.matched)")

        XCTAssertGreaterThanOrEqual(oursTotal.matchedPercent, 95, "a location for ≥ 95% of gpsd's fix epochs")
        XCTAssertGreaterThanOrEqual(oursTotal.exactPercent, 95, "within 1e-7° on ≥ 95% of matched epochs")
        XCTAssertGreaterThanOrEqual(oursTotal.within3mPercent, 99, "within 3 m on ≥ 99% of matched epochs")
        XCTAssertLessThanOrEqual(oursTotal.extraPercent, 1, "≤ 1% of our fixes where gpsd had none")
        XCTAssertEqual(worseThanGpsdecode, [], "logs where gpsdecode does better than we do on some figure")
        XCTAssertEqual(oursTotal.figuresBehind(theirsTotal), [], "figures where gpsdecode does better over all logs")
    }

    private func row(_ name: String, _ ours: EpochComparison, _ theirs: EpochComparison) -> String {
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        return "| \(name) | \(ours.goldenEpochs) | \(f(ours.matchedPercent)) | \(f(ours.exactPercent)) | \(f(ours.within3mPercent)) | \(f(ours.extraPercent)) | "
            + "\(f(theirs.matchedPercent)) | \(f(theirs.exactPercent)) | \(f(theirs.within3mPercent)) | \(f(theirs.extraPercent)) |\n"
    }
}


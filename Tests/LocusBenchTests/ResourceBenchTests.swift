import Foundation
import XCTest
@testable import LocusBench

final class ResourceBenchTests: XCTestCase {
    func testParsesRSSAndCPUTicksEvenWithParenthesesInTheName() throws {
        let status = "Name:\tlocus-bus\nVmPeak:\t  20000 kB\nVmRSS:\t    8421 kB\nThreads:\t4\n"
        let stat = "4242 (odd) name)) S 1 4242 4242 0 -1 4194304 900 0 0 0 37 12 0 0 20 0 4 0 100 200000 2105 0"
        let sample = try XCTUnwrap(ProcSample.parse(status: status, stat: stat))
        XCTAssertEqual(sample, ProcSample(rssKilobytes: 8421, cpuTicks: 49))
    }

    func testRejectsTextWithoutTheFields() {
        XCTAssertNil(ProcSample.parse(status: "Name:\tx\n", stat: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 5 6"))
        XCTAssertNil(ProcSample.parse(status: "VmRSS:\t10 kB\n", stat: "1 (x) S 1"))
    }

    func testParsesPSSFromSmapsRollup() {
        let rollup = "55d0-7ffe ---p 00000000 00:00 0 [rollup]\nRss:\t   22000 kB\nPss:\t    9312 kB\nPss_Anon:\t 2000 kB\n"
        XCTAssertEqual(ProcSample.parsePss(rollup: rollup), 9312)
        XCTAssertNil(ProcSample.parsePss(rollup: "Rss:\t 1 kB\n"))
    }

    func testPSSOfThisProcessIsPositiveAndAtMostItsRSS() throws {
        let pid = getpid()
        let pss = try XCTUnwrap(ProcSample.readPssKilobytes(pid: pid))
        let rss = try XCTUnwrap(ProcSample.read(pid: pid)).rssKilobytes
        XCTAssertGreaterThan(pss, 0)
        XCTAssertLessThanOrEqual(pss, rss + 1024)  // read a moment apart; allow a little growth
    }

    func testCPUPercentIsTicksOverWallTime() {
        let before = ProcSample(rssKilobytes: 1, cpuTicks: 100)
        let after = ProcSample(rssKilobytes: 1, cpuTicks: 150)
        XCTAssertEqual(after.cpuPercent(since: before, wallSeconds: 10, ticksPerSecond: 100), 5, accuracy: 1e-12)
    }

    func testReadsThisProcessAndSeesItsOwnWork() throws {
        let pid = getpid()
        let before = try XCTUnwrap(ProcSample.read(pid: pid))
        XCTAssertGreaterThan(before.rssKilobytes, 1000)
        // Burn CPU until the kernel's tick count moves: reading it back must show the work.
        var sink = 0.0
        var after = before
        let deadline = Date().timeIntervalSince1970 + 5
        while after.cpuTicks == before.cpuTicks, Date().timeIntervalSince1970 < deadline {
            for index in 0..<200_000 { sink += sin(Double(index)) }
            after = try XCTUnwrap(ProcSample.read(pid: pid))
        }
        XCTAssertGreaterThan(after.cpuTicks, before.cpuTicks, "sink \(sink)")
    }

    func testPercentilesUseNearestRank() {
        let samples = (1...200).map(Double.init).shuffled()
        let result = Percentiles(samples)
        XCTAssertEqual(result.p50, 100)
        XCTAssertEqual(result.p99, 198)
        XCTAssertEqual(result.max, 200)
        XCTAssertTrue(Percentiles([]).p99.isNaN)
    }
}

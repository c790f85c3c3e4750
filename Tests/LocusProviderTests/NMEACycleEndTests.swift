import XCTest
@testable import LocusProvider

/// Which epochs are reported: gpsd's learned cycle ends (`NMEACycleEnders`), seen on
/// the sentence patterns of real receivers in gpsd's regression logs.
final class NMEACycleEndTests: XCTestCase {
    private func checked(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)"
    }

    private func reportedSeconds(_ bodies: [String]) -> (seconds: [Int], decoder: NMEADecoder) {
        var decoder = NMEADecoder()
        var fixes: [NMEAFix] = []
        for body in bodies { fixes += decoder.feed(line: Substring(checked(body))) }
        fixes += decoder.finish()
        return (fixes.map { Int($0.timeOfDay) % 60 }, decoder)
    }

    private func rmc(_ s: Int, status: String = "A") -> String {
        "GPRMC,1200\(String(format: "%02d", s)),\(status),4807.038,N,01131.000,E,000.0,209.4,230394,003.1,W"
    }
    private func gga(_ s: Int) -> String {
        "GPGGA,1200\(String(format: "%02d", s)),4807.038,N,01131.000,E,1,05,1.7,49.4,M,-32.4,M,,"
    }
    private func gll(_ s: Int) -> String { "GPGLL,4807.038,N,01131.000,E,1200\(String(format: "%02d", s)),A" }
    private let gsa = "GPGSA,A,3,07,08,,,27,28,29,,,,,,4.2,1.7,3.8"

    /// tn204 (Garmin style): RMC alone at :00, then GGA+GLL at :01, RMC at :02, …
    /// The time change at :01 makes RMC the only cycle end, so :01 (no RMC) is never
    /// reported; GLL becomes a cycle end at :02 and every later epoch is reported.
    func testSecondEpochWithoutTheFirstCycleEndIsNotReported() {
        let (seconds, decoder) = reportedSeconds([
            rmc(0), gga(1), gsa, gll(1), rmc(2), gga(3), gsa, gll(3), rmc(4), gga(5), gsa, gll(5),
        ])
        XCTAssertEqual(seconds, [0, 2, 3, 4, 5])
        XCTAssertEqual(decoder.counters.incompleteCycles, 1)
    }

    /// gp-320fw: cycles RMC, GGA, GSA, GLL end at GLL; a cycle whose GLL is missing
    /// is dropped, and its last timed sentence (GGA) becomes a cycle end from then on.
    func testMidLogEpochMissingItsCycleEndIsDropped() {
        let (seconds, decoder) = reportedSeconds([
            rmc(0), gga(0), gsa, gll(0), rmc(1), gga(1), gsa, gll(1),
            rmc(2), gga(2), gsa,
            rmc(3), gga(3), gsa, rmc(4), gga(4), gsa, gll(4),
        ])
        XCTAssertEqual(seconds, [0, 1, 3, 4])
        XCTAssertEqual(decoder.counters.incompleteCycles, 1)
    }

    /// st-teseo: a log that stops before the last cycle's end sentence.
    func testEpochCutOffAtTheEndOfTheStreamIsNotReported() {
        let (seconds, _) = reportedSeconds([rmc(0), gga(0), gll(0), rmc(1), gga(1), gll(1), rmc(2), gga(2)])
        XCTAssertEqual(seconds, [0, 1])
    }

    /// triton400: the time always changes at a GLL, which gpsd treats as continuing a
    /// cycle, so no cycle end is ever learned and every epoch with a position counts.
    func testGLLBringingTheNewTimeTagsNoCycleEnd() {
        let (seconds, decoder) = reportedSeconds([gll(0), gga(0), rmc(0), gsa, gll(1), gll(2), gga(2), rmc(2)])
        XCTAssertEqual(seconds, [0, 1, 2])
        XCTAssertEqual(decoder.counters.incompleteCycles, 0)
    }

    /// tr737A+ (MTK): an RMC with status V does not count as a cycle time, so GGA,
    /// not the invalid RMC after it, is learned as the cycle end.
    func testInvalidRMCIsNoCycleTime() {
        var enders = NMEACycleEnders()
        for body in [gga(0), rmc(0, status: "V"), gga(1)] {
            _ = enders.observe(try! NMEASentence.parse(checked(body)))
        }
        XCTAssertEqual(enders.kinds, NMEASentenceKind.gga.bit)
    }

    /// gpsd takes no cycle time from GST, so a GST never becomes a cycle end.
    func testGSTIsNoCycleTime() throws {
        var enders = NMEACycleEnders()
        for body in [gga(0), "GPGST,120000,1.0,3.0,2.0,45.0,3.0,4.0,5.0", gga(1)] {
            _ = enders.observe(try NMEASentence.parse(checked(body)))
        }
        XCTAssertEqual(enders.kinds, NMEASentenceKind.gga.bit)
    }

    /// triton400's log has "$GPGGA,030130$GPGLL,…*41": the GGA was cut off by the
    /// next sentence, which is whole and must still be read, as gpsd's lexer does.
    func testSentenceStartingInsideACutOffOneIsRead() {
        var decoder = NMEADecoder()
        var fixes = decoder.feed(line: Substring("$GPGGA,120001" + checked(gll(1))))
        fixes += decoder.finish()
        XCTAssertEqual(fixes.map(\.timeOfDay), [43_201])
        XCTAssertEqual(decoder.counters.truncated, 1)
        XCTAssertEqual(decoder.counters.fixes, 1)
    }
}

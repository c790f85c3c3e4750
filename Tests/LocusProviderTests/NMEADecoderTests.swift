import XCTest
@testable import LocusProvider

/// Epoch assembly, dates, validity rules and accuracy of the decoder.
final class NMEADecoderTests: XCTestCase {
    /// Builds a sentence with a correct checksum.
    private func line(_ body: String) -> Substring {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return Substring("$\(body)*\(hex.count == 1 ? "0" + hex : hex)")
    }

    private func decode(_ bodies: [String], logDate: NMEACivilDate? = nil) -> (fixes: [NMEAFix], decoder: NMEADecoder) {
        var decoder = NMEADecoder(logDate: logDate)
        var fixes: [NMEAFix] = []
        for body in bodies {
            fixes += body.hasPrefix("#") ? decoder.feed(line: Substring(body)) : decoder.feed(line: line(body))
        }
        fixes += decoder.finish()
        return (fixes, decoder)
    }

    func testMergesOneEpochIntoOneFix() throws {
        let (fixes, _) = decode([
            "GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
            "GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1",
            "GPVTG,084.4,T,,M,022.4,N,041.5,K,A",
        ])
        let fix = try XCTUnwrap(fixes.first)
        XCTAssertEqual(fixes.count, 1)
        XCTAssertEqual(fix.lat, 48.1173, accuracy: 1e-9)
        XCTAssertEqual(fix.lon, 11.516666667, accuracy: 1e-8)
        XCTAssertEqual(fix.mode, 3)
        XCTAssertEqual(fix.altMSL, 545.4)
        XCTAssertEqual(try XCTUnwrap(fix.altHAE), 592.3, accuracy: 1e-9)
        XCTAssertEqual(fix.sats, 8)
        XCTAssertEqual(fix.hdop, 0.9)
        XCTAssertEqual(try XCTUnwrap(fix.speed), 41.5 / 3.6, accuracy: 1e-9)
        XCTAssertEqual(fix.course, 84.4)
        XCTAssertEqual(fix.haccSource, "hdop")
        XCTAssertEqual(fix.hacc, NMEAAccuracyModel.radius68(hdop: 0.9, quality: 1), accuracy: 1e-12)
        // 1994-03-23 12:35:19 UTC
        XCTAssertEqual(fix.time, 764_426_119)
        XCTAssertEqual(fix.timeOfDay, 45_319)
    }

    func testNoDateMeansNoAbsoluteTime() throws {
        let (fixes, _) = decode(["GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"])
        let fix = try XCTUnwrap(fixes.first)
        XCTAssertNil(fix.time)
        XCTAssertEqual(fix.timeOfDay, 45_319)
    }

    func testLogDateCommentChoosesTheCentury() throws {
        let rmc = "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"
        let (plain, _) = decode([rmc])
        XCTAssertEqual(plain.first?.time, 764_426_119)  // 1994 by the 1980–2079 window
        let (dated, decoder) = decode(["# Date: 2093-01-01", rmc])
        XCTAssertEqual(decoder.logDate, NMEACivilDate(year: 2093, month: 1, day: 1))
        let expected = Double(NMEACivilDate(year: 2094, month: 3, day: 23)!.daysSinceEpoch) * 86_400 + 45_319
        XCTAssertEqual(dated.first?.time, expected)
    }

    func testZDADateAndMidnightRollover() throws {
        let (fixes, _) = decode([
            "GPZDA,235959.00,31,12,2024,00,00",
            "GPGGA,235959.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,000000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        XCTAssertEqual(fixes.count, 2)
        let newYear = Double(NMEACivilDate(year: 2025, month: 1, day: 1)!.daysSinceEpoch) * 86_400
        XCTAssertEqual(fixes.first?.time, newYear - 1)
        XCTAssertEqual(fixes.last?.time, newYear)
    }

    func testNoFixSentencesGiveNoLocationAndSayNoFix() {
        let (fixes, decoder) = decode([
            "GPRMC,123519,V,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
            "GPGGA,123520,4807.038,N,01131.000,E,0,08,0.9,545.4,M,46.9,M,,",
            "GPGLL,4807.038,N,01131.000,E,123521,V",
        ])
        XCTAssertEqual(fixes, [])
        XCTAssertEqual(decoder.counters.noFix, 3)
        XCTAssertEqual(decoder.lastProblem, "no fix")
        XCTAssertEqual(decoder.hasFix, false)
    }

    func testNullIslandAndOutOfRangeAreRejectedAndReported() {
        let (fixes, decoder) = decode([
            "GPGGA,123519,0000.000,N,00000.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,123520,9107.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        XCTAssertEqual(fixes, [])
        XCTAssertEqual(decoder.counters.rejected, 2)
        XCTAssertTrue(decoder.lastProblem?.contains("out of range") ?? false, decoder.lastProblem ?? "nil")
    }

    func testTimeGoingBackwardsIsRejected() {
        let (fixes, decoder) = decode([
            "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,123518,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        XCTAssertEqual(fixes.map(\.timeOfDay), [45_319, 45_320])
        XCTAssertEqual(decoder.counters.rejected, 1)
    }

    func testGSTThenGBSThenHDOPAccuracy() throws {
        let gga = "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
        let (gst, _) = decode([gga, "GPGST,123519,1.0,3.0,2.0,45.0,3.0,4.0,5.0"])
        XCTAssertEqual(gst.first?.haccSource, "gst")
        XCTAssertEqual(try XCTUnwrap(gst.first?.hacc), 1.5096 * (12.5).squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(gst.first?.vacc, 5.0)
        let (gbs, _) = decode([gga, "GPGBS,123519,2.0,2.0,4.0,,,,"])
        XCTAssertEqual(gbs.first?.haccSource, "gbs")
        XCTAssertEqual(try XCTUnwrap(gbs.first?.hacc), 1.5096 * 2, accuracy: 1e-9)
        let (none, _) = decode(["GPGLL,4807.038,N,01131.000,E,123521,A"])
        XCTAssertEqual(none.first?.haccSource, "default")
        XCTAssertEqual(none.first?.mode, 2)
    }

    func testLearnsTheCycleEndAndReportsWithoutWaiting() {
        var decoder = NMEADecoder()
        var reportedAt: [Int] = []
        var count = 0
        for second in 0..<5 {
            let t = String(format: "1200%02d", second)
            for body in ["GPRMC,\(t),A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
                         "GPGGA,\(t),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"] {
                count += 1
                if !decoder.feed(line: line(body)).isEmpty { reportedAt.append(count) }
            }
        }
        // Cycles 0 and 1 end when the next time stamp arrives (lines 3 and 5); by then
        // GGA has been seen to end the cycle twice, and later cycles report at their GGA.
        XCTAssertEqual(reportedAt, [3, 5, 6, 8, 10])
        XCTAssertEqual(decoder.finish(), [])
    }
}

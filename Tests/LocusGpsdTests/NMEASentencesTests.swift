import XCTest
@testable import LocusGpsd
import LocusProtocol
import LocusProvider

/// The generated NMEA: valid framing and checksums, exact angles, and a round trip through
/// Locus's own NMEA reader (the one `locus-provider nmea` uses) back to the same fix.
final class NMEASentencesTests: XCTestCase {
    private func epoch(_ location: Location, t: Double = fixTime, sky: SkyView? = nil) -> [String] {
        NMEASentences.epoch(fix: ServedFix(location: location, messageTime: t), sky: sky)
    }

    func testGoldenEpoch() {
        XCTAssertEqual(epoch(fusedFix()), [
            "$GPRMC,093001.250,A,3113.8240000,N,12128.4220000,E,2.916,90.00,140526,,,A*61\r\n",
            "$GPGGA,093001.250,3113.8240000,N,12128.4220000,E,1,04,0.94,12.500,M,0.0,M,,*6D\r\n",
            "$GPGSA,A,3,,,,,,,,,,,,,,0.94,*0F\r\n",
            "$GPGST,093001.250,,3.312,3.312,0.0,3.312,3.312,3.000*46\r\n",
        ])
    }

    func testEveryChecksumIsTheXorOfTheBody() throws {
        for sentence in epoch(fusedFix(lat: -45.123456789, lon: -0.000001, mode: "dr"), sky: SkyView(used: 7, hdop: 1.1, time: fixTime)) {
            XCTAssertTrue(sentence.hasPrefix("$") && sentence.hasSuffix("\r\n"))
            let star = try XCTUnwrap(sentence.lastIndex(of: "*"))
            let body = sentence[sentence.index(after: sentence.startIndex)..<star]
            let written = sentence[sentence.index(after: star)...].prefix(2)
            XCTAssertEqual(UInt8(written, radix: 16), NMEASentences.checksum(body.utf8), sentence)
        }
    }

    func testMinutesCarryIntoDegreesInsteadOfPrintingSixty() {
        XCTAssertEqual(NMEASentences.latitude(10.999999999999).0, "1100.0000000")
        XCTAssertEqual(NMEASentences.longitude(-179.99999999999).0, "18000.0000000")
        XCTAssertEqual(NMEASentences.longitude(-179.99999999999).1, "W")
        XCTAssertEqual(NMEASentences.latitude(-0.5).0, "0030.0000000")
        XCTAssertEqual(NMEASentences.latitude(-0.5).1, "S")
    }

    func testEstimatedFixesAreQualitySixAndModeE() {
        let lines = epoch(Location(device: "car", source: "cache", lat: 1, lon: 2, hacc: 40, mode: "cache", age: 60))
        XCTAssertTrue(lines[0].contains(",A,0100.0000000,N,00200.0000000,E,,,"))
        XCTAssertTrue(lines[0].contains(",,,E*"))
        XCTAssertTrue(lines[1].contains(",E,6,03,"))  // 2D: at least the 3 satellites a 2D fix needs
        XCTAssertTrue(lines[2].hasPrefix("$GPGSA,A,2,"))
    }

    func testRoundTripThroughLocusNMEAReader() throws {
        let cases: [Location] = [
            fusedFix(),
            fusedFix(lat: -33.868820123, lon: 151.209295987, hacc: 2.2, alt: -12.25, vacc: 0.7, speed: 31.4, course: 359.99),
            fusedFix(lat: 64.1, lon: -21.9, hacc: 120, alt: nil, vacc: nil, speed: nil, course: nil, mode: "2d"),
        ]
        for location in cases {
            var decoder = NMEADecoder()
            var fixes: [NMEAFix] = []
            // The reader closes an epoch when the next one starts.
            for sentence in epoch(location) + epoch(location, t: fixTime + 1) {
                fixes += decoder.feed(line: Substring(sentence.dropLast()))  // "\r\n" is one Character
            }
            let fix = try XCTUnwrap(fixes.first, "\(location)")
            XCTAssertEqual(fixes.count, 1)
            XCTAssertEqual(decoder.counters.badChecksum, 0)
            XCTAssertEqual(fix.lat, location.lat, accuracy: 2e-9)
            XCTAssertEqual(fix.lon, location.lon, accuracy: 2e-9)
            XCTAssertEqual(try XCTUnwrap(fix.time), fixTime, accuracy: 0.0005)
            XCTAssertEqual(fix.haccSource, "gst")
            XCTAssertEqual(fix.hacc, location.hacc, accuracy: 0.001)
            XCTAssertEqual(fix.mode, location.alt == nil ? 2 : 3)
            if let alt = location.alt {
                XCTAssertEqual(try XCTUnwrap(fix.altHAE), alt, accuracy: 0.0005)
                XCTAssertEqual(try XCTUnwrap(fix.vacc), try XCTUnwrap(location.vacc), accuracy: 0.0005)
            }
            if let speed = location.speed { XCTAssertEqual(try XCTUnwrap(fix.speed), speed, accuracy: 0.001) }
            if let course = location.course { XCTAssertEqual(try XCTUnwrap(fix.course), course, accuracy: 0.005) }
        }
    }

    func testDerivedHdopGivesBackHaccUnderTheReadersModel() {
        for hacc in [1.0, 5.0, 25.0] {
            XCTAssertEqual(NMEAAccuracyModel.radius68(hdop: GpsdErrorModel.hdop(hacc: hacc), quality: 1), hacc, accuracy: 1e-9)
        }
    }
}

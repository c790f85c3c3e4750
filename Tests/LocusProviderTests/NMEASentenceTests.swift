import XCTest
@testable import LocusProvider

/// Framing, checksum and field reading of single sentences.
final class NMEASentenceTests: XCTestCase {
    func testParsesGGAFieldsAndTalker() throws {
        let s = try NMEASentence.parse("$GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*53\r\n")
        XCTAssertEqual(s.talker, "GP")
        XCTAssertEqual(s.kind, .gga)
        XCTAssertEqual(s.field(1), "4527.458")
        XCTAssertEqual(s.fieldCount, 14)
        XCTAssertEqual(s.timeOfDayMillis, (22 * 3600 + 53 * 60 + 8) * 1000)
        let lat = try XCTUnwrap(s.coordinate(1, hemisphere: 2, positive: 0x4E, negative: 0x53))
        XCTAssertEqual(lat, -(45 + 27.458 / 60), accuracy: 1e-12)
    }

    func testAcceptsAnyTalker() throws {
        for talker in ["GP", "GL", "GA", "GB", "BD", "GQ", "GN"] {
            let body = "\(talker)RMC,081836,A,3751.65,S,14507.36,E,000.0,360.0,130998,011.3,E"
            let sum = body.utf8.reduce(UInt8(0), ^)
            let line = "$\(body)*\(String(format: "%02X", sum))"
            XCTAssertEqual(try NMEASentence.parse(line).talker, talker)
        }
    }

    func testRejectsWrongChecksum() {
        XCTAssertThrowsError(try NMEASentence.parse("$GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*54")) { error in
            XCTAssertEqual(error as? NMEAParseError, .badChecksum(expected: 0x54, computed: 0x53))
        }
    }

    func testRejectsTruncatedLine() {
        XCTAssertThrowsError(try NMEASentence.parse("$GPGGA,225308,4527.458,S,16709")) { error in
            guard case .truncated = error as? NMEAParseError else { return XCTFail("got \(error)") }
        }
        XCTAssertThrowsError(try NMEASentence.parse("$GPGGA,225308*5")) { error in
            guard case .truncated = error as? NMEAParseError else { return XCTFail("got \(error)") }
        }
    }

    func testClassifiesVendorAndUnsupported() {
        XCTAssertThrowsError(try NMEASentence.parse("$PGRME,9.1,M,15.0,M,12.0,M*21")) { error in
            XCTAssertEqual(error as? NMEAParseError, .vendor("PGRME"))
        }
        XCTAssertThrowsError(try NMEASentence.parse("$GPRMB,A,,,,,,,,,,,,V*71")) { error in
            XCTAssertEqual(error as? NMEAParseError, .unsupported("GPRMB"))
        }
    }

    func testRejectsBinaryAndOverlong() {
        XCTAssertThrowsError(try NMEASentence.parse("$GPGGA,\u{01}\u{02}*00")) { error in
            guard case .notNMEA = error as? NMEAParseError else { return XCTFail("got \(error)") }
        }
        XCTAssertThrowsError(try NMEASentence.parse("$GPGGA," + String(repeating: "9", count: 5000) + "*00")) { error in
            guard case .tooLong = error as? NMEAParseError else { return XCTFail("got \(error)") }
        }
    }

    func testErrorsHaveReadableDescriptions() {
        XCTAssertEqual(NMEAParseError.badChecksum(expected: 0x54, computed: 0x53).description,
                       "bad checksum: line says 54, body sums to 53")
        XCTAssertTrue(NMEAParseError.truncated("no '*' checksum").description.contains("truncated"))
    }
}

import XCTest
@testable import LocusGpsd
import LocusProtocol
import LocusProvider

/// TPV, SKY and GST as gpsd writes them, and their error estimates: checked against the
/// reader Locus already has for gpsd (`GPSDReport`), so a fix that goes out through
/// locus-gpsd and back in through `locus-provider gpsd` keeps its accuracy.
final class ReportsTests: XCTestCase {
    func testTPVMembersOrderAndDecimals() {
        var previous = ServedFix(location: fusedFix(alt: 12.0), messageTime: fixTime - 1)
        previous.location.vacc = 3
        let fix = ServedFix(location: fusedFix(hacc: 5, alt: 12.5, vacc: 3), messageTime: fixTime, previous: previous)
        let line = GpsdReports.tpv(path: "locus://car", fix: fix).line
        XCTAssertEqual(line, #"{"class":"TPV","device":"locus://car","mode":3,"time":"2026-05-14T09:30:01.250Z","#
            + #""lat":31.230400000,"lon":121.473700000,"altHAE":12.5000,"epx":6.492,"epy":6.492,"epv":5.880,"#
            + #""track":90.0000,"speed":1.500,"climb":0.500,"eps":0.39,"epc":8.32,"eph":8.107}"# + "\r\n")
    }

    func testTwoDimensionalAndUnknownFieldsAreLeftOut() {
        let location = Location(device: "car", source: "fused", lat: -33.5, lon: -70.25, hacc: 80, alt: 500, mode: "2d")
        let object = GpsdReports.tpv(path: "locus://car", fix: ServedFix(location: location, messageTime: fixTime)).object
        XCTAssertEqual(object, #"{"class":"TPV","device":"locus://car","mode":2,"time":"2026-05-14T09:30:01.250Z","#
            + #""lat":-33.500000000,"lon":-70.250000000,"epx":103.869,"epy":103.869,"eph":129.714}"#)
    }

    func testDeadReckoningIsStatusFiveAndAgedFixesKeepTheirMeasurementTime() {
        let location = Location(device: "car", source: "dr", lat: 1, lon: 2, hacc: 30, mode: "dr", age: 4)
        let fix = ServedFix(location: location, messageTime: fixTime)
        XCTAssertEqual(fix.time, fixTime - 4)
        let object = GpsdReports.tpv(path: "locus://car", fix: fix).object
        XCTAssertTrue(object.hasPrefix(#"{"class":"TPV","device":"locus://car","status":5,"mode":2,"time":"2026-05-14T09:29:57.250Z""#))
    }

    func testErrorsRoundTripThroughLocusGpsdReader() throws {
        for hacc in [0.5, 3.0, 12.7, 48.0, 2_500.0] {
            let fix = ServedFix(location: fusedFix(hacc: hacc, vacc: hacc / 2), messageTime: fixTime)
            let line = GpsdReports.tpv(path: "locus://car", fix: fix).object
            guard case let .fix(location, t)? = GPSDReport.parse(line: line, device: "car") else { return XCTFail(line) }
            XCTAssertEqual(location.hacc, hacc, accuracy: hacc * 1e-4 + 1e-3, "hacc \(hacc)")
            XCTAssertEqual(try XCTUnwrap(location.vacc), hacc / 2, accuracy: hacc * 1e-4 + 1e-3)
            XCTAssertEqual(location.lat, 31.2304, accuracy: 1e-12)
            XCTAssertEqual(t, fixTime, accuracy: 1e-6)
            // eph alone (epx/epy dropped) gives the same radius: the two conventions agree.
            let ephOnly = GPSDReport.hacc(epx: nil, epy: nil, eph: GpsdErrorModel.horizontalError95(hacc: hacc))
            XCTAssertEqual(ephOnly, hacc, accuracy: hacc * 1e-4)
        }
    }

    func testSkyAndGst() {
        let sky = GpsdReports.sky(path: "locus://car", sky: SkyView(used: 11, hdop: 1.234, time: fixTime)).object
        XCTAssertEqual(sky, #"{"class":"SKY","device":"locus://car","time":"2026-05-14T09:30:01.250Z","hdop":1.23,"nSat":0,"uSat":11}"#)
        let gst = GpsdReports.gst(path: "locus://car", fix: ServedFix(location: fusedFix(hacc: 15.096, vacc: 4), messageTime: fixTime)).object
        XCTAssertEqual(gst, #"{"class":"GST","device":"locus://car","time":"2026-05-14T09:30:01.250Z","#
            + #""major":10.000,"minor":10.000,"orient":0.000,"lat":10.000,"lon":10.000,"alt":4.000}"#)
    }

    func testFixedDecimalRoundsOnceAndNeverPrintsNegativeZero() {
        XCTAssertEqual(FixedDecimal.text(31.2304, decimals: 9), "31.230400000")
        XCTAssertEqual(FixedDecimal.text(-0.0000000001, decimals: 9), "0.000000000")
        XCTAssertEqual(FixedDecimal.text(-122.5, decimals: 0), "-123")
        XCTAssertEqual(FixedDecimal.text(0.0005, decimals: 3), "0.001")
        XCTAssertEqual(FixedDecimal.text(9.99995, decimals: 4), "10.0000")
        XCTAssertEqual(FixedDecimal.text(-179.9999999999, decimals: 9), "-180.000000000")
    }

    func testUTCTimeCarriesMillisecondsIntoSeconds() {
        XCTAssertEqual(UTCTime(unixSeconds: 1_778_751_000.9996).iso8601, "2026-05-14T09:30:01.000Z")
        XCTAssertEqual(UTCTime(unixSeconds: 951_868_799.5).iso8601, "2000-02-29T23:59:59.500Z")
        XCTAssertEqual(UTCTime(unixSeconds: 0).iso8601, "1970-01-01T00:00:00.000Z")
        let time = UTCTime(unixSeconds: 4_102_444_799.123)
        XCTAssertEqual(time.nmeaTimeOfDay, "235959.123")
        XCTAssertEqual(time.nmeaDate, "311299")
    }
}

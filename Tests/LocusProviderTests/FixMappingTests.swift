import LocusProtocol
import XCTest
@testable import LocusProvider

final class FixMappingTests: XCTestCase {
    func testMapsEveryFieldAndUsesHeightAboveEllipsoid() throws {
        let fix = NMEAFix(time: 1_000_000, timeOfDay: 3600, lat: 48.1, lon: 11.5, mode: 3, altHAE: 560, altMSL: 512,
                          speed: 3.5, course: 359.99, sats: 9, hdop: 0.9, hacc: 4.2, vacc: 6, haccSource: "gst", quality: 1)
        let mapped = try XCTUnwrap(FixMapping.location(fix, device: "d", source: "gps"))
        XCTAssertEqual(mapped.t, 1_000_000)
        XCTAssertEqual(mapped.location, Location(device: "d", source: "gps", lat: 48.1, lon: 11.5, hacc: 4.2, alt: 560, vacc: 6,
                                                 speed: 3.5, course: 359.99, mode: "3d", sats: 9, hdop: 0.9))
    }

    func testTwoDimensionalFixHasNoAltitudeWhenUnknown() throws {
        let fix = NMEAFix(time: 5, timeOfDay: 5, lat: 1, lon: 2, mode: 2, hacc: 50, haccSource: "default")
        let mapped = try XCTUnwrap(FixMapping.location(fix, device: "d"))
        XCTAssertEqual(mapped.location.mode, "2d")
        XCTAssertNil(mapped.location.alt)
        XCTAssertNil(mapped.location.speed)
        XCTAssertEqual(mapped.location.source, "gnss")
    }

    func testFixWithoutDateIsNotMapped() {
        let fix = NMEAFix(time: nil, timeOfDay: 5, lat: 1, lon: 2, mode: 2, hacc: 50, haccSource: "default")
        XCTAssertNil(FixMapping.location(fix, device: "d"))
        var dates = NMEADateFallback(date: NMEADateFallback.parse("2020-02-29"))
        XCTAssertEqual(dates.time(for: fix), 1_582_934_400 + 5)
        var late = fix
        late.timeOfDay = 86_399
        XCTAssertEqual(dates.time(for: late), 1_582_934_400 + 86_399)
        XCTAssertEqual(dates.time(for: fix), 1_583_020_800 + 5, "a wrapped time of day moves to the next day")
    }

    func testCourseIsNormalised() {
        XCTAssertEqual(FixMapping.normalizedCourse(360), 0)
        XCTAssertEqual(FixMapping.normalizedCourse(-90), 270)
        XCTAssertNil(FixMapping.normalizedCourse(.nan))
    }

    func testGPSDReportTPVBecomesLocation() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/3","mode":3,"time":"2021-01-20T22:53:18.000Z","lat":-45.457633333,"lon":167.15275,"altHAE":15.1,"epx":10.0,"epy":12.0,"epv":30.0,"track":94.5,"speed":0.0}"#
        guard case let .fix(location, t) = try XCTUnwrap(GPSDReport.parse(line: line, device: "g")) else { return XCTFail("no fix") }
        XCTAssertEqual(t, 1_611_183_198)
        XCTAssertEqual(location.lat, -45.457633333)
        XCTAssertEqual(location.alt, 15.1)
        XCTAssertEqual(location.mode, "3d")
        XCTAssertEqual(location.hacc, NMEAAccuracyModel.radius68(sigmaLatMeters: 12 / 1.96, sigmaLonMeters: 10 / 1.96), accuracy: 1e-9)
        XCTAssertEqual(GPSDReport.parse(line: #"{"class":"TPV","mode":1}"#, device: "g"), .noFix)
        XCTAssertEqual(GPSDReport.parse(line: #"{"class":"SKY"}"#, device: "g"), .other("SKY"))
        XCTAssertNil(GPSDReport.parse(line: "not json", device: "g"))
    }

    func testISO8601Variants() {
        XCTAssertEqual(ISO8601Time.unixSeconds("2016-05-27T10:08:47.8Z")!, 1_464_343_727.8, accuracy: 1e-6)
        XCTAssertEqual(ISO8601Time.unixSeconds("2016-05-27T12:08:47+02:00"), 1_464_343_727)
        XCTAssertEqual(ISO8601Time.unixSeconds("2016-05-27T10:08:47"), 1_464_343_727)
        XCTAssertNil(ISO8601Time.unixSeconds("2016-13-27T10:08:47Z"))
        XCTAssertNil(ISO8601Time.unixSeconds("yesterday"))
        XCTAssertNil(ISO8601Time.unixSeconds("2016-05-27T10:08:47Zjunk"))
    }
}

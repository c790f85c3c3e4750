import Foundation
import LocusGeo
import XCTest
@testable import LocusProvider

final class GPXParserTests: XCTestCase {
    func testRecordedTracksKeepEveryPointAndTime() throws {
        for (name, count, timed) in [("korita-zbevnica.gpx", 871, 513), ("cerknicko-jezero.gpx", 296, 296)] {
            let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx(name).path)
            let path = document.path
            XCTAssertEqual(path.count, count, name)
            XCTAssertEqual(document.version, "1.0")
            XCTAssertEqual(path.filter { $0.time != nil }.count, timed, name)
            XCTAssertTrue(path.allSatisfy { $0.elevation != nil }, name)
            XCTAssertFalse(document.waypoints.isEmpty, name)
        }
    }

    func testRouteWithoutTimesReplaysFromWaypoints() throws {
        let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx("route.gpx").path)
        XCTAssertTrue(document.tracks.isEmpty)
        XCTAssertEqual(document.path.count, 55)
        XCTAssertEqual(document.path[0], GPXPoint(lat: 45.2787641494, lon: 13.726695478))
    }

    func testByteOrderMarkAndNoNamespace() throws {
        let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx("unicode_with_bom.gpx").path)
        XCTAssertEqual(document.waypoints.count, 1)
        let point = try XCTUnwrap(document.waypoints.first)
        XCTAssertEqual(point.elevation, -14.6)
        XCTAssertEqual(point.time!, 1_464_343_727.8, accuracy: 1e-6)
        XCTAssertEqual(point.hdop, 16.2)
        XCTAssertEqual(point.sats, 4)
    }

    func testDilutionAndSpeedFields() throws {
        let dilution = try GPXParser.parse(contentsOf: ProviderTestData.gpx("track_with_dilution_errors.gpx").path)
        XCTAssertEqual(dilution.waypoints.first?.hdop, 100.1)
        XCTAssertEqual(dilution.routes.first?.first?.vdop, 201.1)
        XCTAssertEqual(dilution.tracks.first?.first?.hdop, 300.1)
        let speed = try GPXParser.parse(contentsOf: ProviderTestData.gpx("track_with_speed.gpx").path)
        XCTAssertEqual(speed.path.map(\.speed), [1.2, 2.2, 3.2])
        XCTAssertEqual(speed.time, ISO8601Time.unixSeconds("2007-03-02T10:34:03Z"))
    }

    func testExtremesAreParsedAsGiven() throws {
        let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx("track-with-extremes.gpx").path)
        XCTAssertEqual(document.path.count, 25)
        XCTAssertTrue(document.path.allSatisfy { $0.time == nil })
        XCTAssertEqual(document.path.compactMap(\.elevation).max(), 30)
    }

    func testNamespacePrefixesAndExtensionsAreHandled() throws {
        let xml = """
            <?xml version="1.0"?>
            <g:gpx xmlns:g="http://www.topografix.com/GPX/1/1" version="1.1"><g:trk><g:trkseg>
            <g:trkpt lat="1.5" lon="2.5"><g:time>2020-01-01T00:00:00Z</g:time>
            <g:extensions><x:speed xmlns:x="urn:x">99</x:speed><g:ele>1000</g:ele></g:extensions></g:trkpt>
            </g:trkseg></g:trk></g:gpx>
            """
        let document = try GPXParser.parse(Data(xml.utf8))
        XCTAssertEqual(document.path, [GPXPoint(lat: 1.5, lon: 2.5, time: 1_577_836_800)])
    }

    func testBadInputGivesCleanErrors() {
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("binary", Data([0x00, 0xFF, 0x13, 0x37, 0x00, 0x42])),
            ("not xml", Data("hello, world".utf8)),
            ("wrong root", Data("<kml><Placemark/></kml>".utf8)),
            ("bad lat", Data(#"<gpx><wpt lat="north" lon="1"/></gpx>"#.utf8)),
            ("lat out of range", Data(#"<gpx><wpt lat="91" lon="1"/></gpx>"#.utf8)),
            ("bad time", Data(#"<gpx><trk><trkseg><trkpt lat="1" lon="1"><time>soon</time></trkpt></trkseg></trk></gpx>"#.utf8)),
        ]
        for (name, data) in cases {
            XCTAssertThrowsError(try GPXParser.parse(data), name) { error in
                XCTAssertFalse((error as? GPXError)?.message.isEmpty ?? true, name)
            }
        }
    }

    func testTruncatedRealFilesFailCleanly() throws {
        let data = try Data(contentsOf: ProviderTestData.gpx("korita-zbevnica.gpx"))
        for cut in stride(from: 1, to: data.count - 20, by: data.count / 37) {
            XCTAssertThrowsError(try GPXParser.parse(data.prefix(cut)), "cut at \(cut)")
        }
    }

    func testRandomInputNeverCrashes() {
        var random = SeededGenerator(seed: 42)
        let template = Array(#"<gpx><trk><trkseg><trkpt lat="1" lon="2"><ele>3</ele><time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"#.utf8)
        var parsed = 0
        for round in 0..<3000 {
            var bytes = template
            switch round % 3 {
            case 0:
                bytes = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                for _ in 0..<3 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            default:
                // Printable ASCII mutations: valid UTF-8 that still breaks the structure.
                for _ in 0..<3 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(0x20 + random.next() % 95) }
            }
            if (try? GPXParser.parse(Data(bytes))) != nil { parsed += 1 }
        }
        XCTAssertLessThan(parsed, 3000, "random bytes must not all parse")
    }
}

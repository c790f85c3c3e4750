import Foundation
import XCTest
@testable import LocusProvider

/// Broken GPX gives a `GPXError` that says what is wrong and where, never a crash or a
/// partial document.
final class GPXMalformedInputTests: XCTestCase {
    private static let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n"

    func testEachMalformedCaseNamesItsProblemAndPosition() {
        let hugeValue = String(repeating: "7", count: 100_000)
        let cases: [(name: String, bytes: [UInt8], words: String, line: Int, column: Int)] = [
            ("unclosed tag", Array((Self.head + "<trk><trkseg>\n</trk></gpx>").utf8),
             "end tag </trk> does not match <trkseg> opened at line 3, column 6", 4, 3),
            ("mismatched tag", Array((Self.head + "<wpt lat=\"1\" lon=\"2\"></wtp></gpx>").utf8),
             "end tag </wtp> does not match <wpt>", 3, 24),
            ("bad entity", Array((Self.head + "<wpt lat=\"1\" lon=\"2\"><name>A &eacute; B</name></wpt></gpx>").utf8),
             "undefined entity &eacute;", 3, 30),
            ("invalid UTF-8", Array((Self.head + "<wpt lat=\"1\" lon=\"2\"><name>").utf8) + [0xC3, 0x28] + Array("</name></wpt></gpx>".utf8),
             "invalid UTF-8", 3, 28),
            ("DOCTYPE with entities",
             Array("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [\n<!ENTITY lol \"lol\">\n<!ENTITY lol2 \"&lol;&lol;&lol;\">\n]>\n<gpx>&lol2;</gpx>".utf8),
             "DOCTYPE with an internal subset", 2, 15),
            ("truncated file", Array((Self.head + "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>3</ele>").utf8),
             "input ends inside <trkpt> opened at line 3, column 14 (truncated file?)", 3, 49),
            ("huge unknown attribute", Array((Self.head + "<wpt lat=\"1\" lon=\"2\" note=\"\(hugeValue)\"/></gpx>").utf8),
             "value of attribute note longer than 65536 bytes", 3, 28),
            ("huge lat", Array((Self.head + "<wpt lat=\"\(hugeValue)\" lon=\"2\"/></gpx>").utf8),
             "value of attribute lat longer than 65536 bytes", 3, 11),
            ("point out of range", Array((Self.head + "<trk><trkseg>\n  <trkpt lat=\"1e3\" lon=\"2\"/></trkseg></trk></gpx>").utf8),
             "<trkpt> lat 1000.0 lon 2.0 out of range", 4, 3),
            ("processing instruction without data", Array((Self.head + "<?pi?></gpx>").utf8),
             "processing instruction <?pi?> has no data", 3, 1),
        ]
        for (name, bytes, words, line, column) in cases {
            XCTAssertThrowsError(try GPXParser.parse(Data(bytes)), name) { error in
                guard let error = error as? GPXError else { return XCTFail("\(name): \(error)") }
                XCTAssertTrue(error.message.contains(words), "\(name): \(error.message)")
                XCTAssertEqual(error.line, line, "\(name): \(error)")
                XCTAssertEqual(error.column, column, "\(name): \(error)")
                XCTAssertTrue(error.description.hasPrefix("GPX line \(line), column \(column): "), "\(name): \(error)")
            }
        }
    }

    func testEveryCutOfARealFileIsRefusedWithAPosition() throws {
        let data = try Data(contentsOf: ProviderTestData.gpx("cerknicko-jezero.gpx"))
        let end = data.lastIndex(of: UInt8(ascii: ">"))!
        for cut in stride(from: 1, to: end, by: 251) {
            XCTAssertThrowsError(try GPXParser.parse(data.prefix(cut)), "cut at \(cut)") { error in
                XCTAssertNotNil((error as? GPXError)?.line, "cut at \(cut): \(error)")
            }
        }
        XCTAssertEqual(try GPXParser.parse(data.prefix(end + 1)).path.count, 296)
    }

    func testEntitiesCommentsAndCDATAInsideValuesAreRead() throws {
        let xml = Self.head + """
            <!-- exported by a tool -->
            <trk><trkseg><trkpt lat=" 46.5&#x30;" lon='&#49;5'>
            <ele><![CDATA[ 1200.5 ]]></ele><time>2020-01-01T00:00:0&#48;Z</time><!-- a note -->
            <sat>0&#56;</sat></trkpt></trkseg></trk></gpx>
            """
        let document = try GPXParser.parse(Data(xml.utf8))
        XCTAssertEqual(document.path, [GPXPoint(lat: 46.5, lon: 15, elevation: 1200.5, time: 1_577_836_800, sats: 8)])
    }
}

import LocusProtocol
import XCTest

/// The text form: `topic SPACE body`, one line, used by `locus tail` and `--stdio`.
final class TextFormTests: XCTestCase {
    func testLineAndParseRoundTrip() throws {
        let message = Samples.message(Samples.fullBodies[0])
        let body = MessageCodec.encode(message)
        let line = TextForm.line(topic: Topic.locationRaw("truck-7"), body: body)
        XCTAssertFalse(line.hasSuffix("\n"))
        XCTAssertTrue(line.hasPrefix("location.raw.truck-7 {"))
        let parsed = try TextForm.parse(line[...])
        XCTAssertEqual(parsed.topic, "location.raw.truck-7")
        XCTAssertEqual(parsed.body, body)
        XCTAssertEqual(try MessageCodec.decode(parsed.body), message)
    }

    func testTrailingNewlineIsTolerated() throws {
        XCTAssertEqual(try TextForm.parse("a.b {\"x\":1}\n").topic, "a.b")
        XCTAssertEqual(try TextForm.parse("a.b {\"x\":1}\r\n").body, Array("{\"x\":1}".utf8))
    }

    func testBodyMayContainSpaces() throws {
        let parsed = try TextForm.parse(#"error.x {"code": "c", "message": "two words"}"#)
        XCTAssertEqual(parsed.topic, "error.x")
        XCTAssertEqual(String(decoding: parsed.body, as: UTF8.self), #"{"code": "c", "message": "two words"}"#)
    }

    func testParseErrors() {
        let cases: [(String, ProtocolError.Code)] = [
            ("location.raw.x", .invalidTextLine),
            ("", .invalidTextLine),
            (" {\"v\":1}", .invalidTextLine),
            ("a\u{01}b {}", .invalidTextLine),
            ("topic ", .invalidJSON),
            ("topic not-json", .invalidJSON),
            ("topic {\"v\":1", .invalidJSON),
            ("topic {} trailing", .invalidJSON),
            ("topic {\"v\":NaN}", .notFinite),
        ]
        for (line, code) in cases {
            XCTAssertThrowsError(try TextForm.parse(line[...]), line.debugDescription) { error in
                XCTAssertEqual((error as? ProtocolError)?.code, code, line.debugDescription)
                XCTAssertFalse((error as? ProtocolError)?.message.isEmpty ?? true)
            }
        }
    }
}

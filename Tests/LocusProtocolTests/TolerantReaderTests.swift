import LocusProtocol
import XCTest

/// Tolerant reading: unknown fields are ignored, unknown types are kept as `.other`,
/// null means absent for optional fields, and a duplicate member's last value wins.
final class TolerantReaderTests: XCTestCase {
    func testUnknownFieldsAreIgnoredOnEveryType() throws {
        for body in Samples.fullBodies {
            let message = Samples.message(body)
            var text = String(decoding: MessageCodec.encode(message), as: UTF8.self)
            text.removeLast()
            text += #","futureField":{"nested":[1,2,{"x":null}]},"zz":"extra","n":-1.5e3}"#
            XCTAssertEqual(try MessageCodec.decode(text), message, body.type)
        }
    }

    func testUnknownTypeIsKeptWithItsFields() throws {
        let message = try MessageCodec.decode(#"{"v":1,"type":"battery","id":"b1","t":5,"src":"x","seq":2,"device":"d","level":0.5,"tags":["a"]}"#)
        XCTAssertEqual(message.envelope, Envelope(type: "battery", id: "b1", t: 5, src: "x", seq: 2))
        XCTAssertEqual(message.body, .other(type: "battery", fields: .object([
            "device": .string("d"), "level": .number(0.5), "tags": .array([.string("a")]),
        ])))
        XCTAssertEqual(try MessageCodec.decode(MessageCodec.encode(message)), message, "an unknown type is forwarded unchanged")
    }

    func testNullForAnOptionalFieldMeansAbsent() throws {
        let message = try MessageCodec.decode(#"{"v":1,"type":"location","id":"x","t":1,"src":"s","seq":null,"device":"d","source":"gps","lat":1,"lon":2,"hacc":3,"alt":null,"mode":null}"#)
        XCTAssertNil(message.envelope.seq)
        XCTAssertEqual(message.body, .location(Location(device: "d", source: "gps", lat: 1, lon: 2, hacc: 3)))
    }

    func testDuplicateMembersLastOneWins() throws {
        let message = try MessageCodec.decode(#"{"v":1,"type":"location","id":"x","t":1,"src":"s","device":"d","source":"gps","lat":1,"lat":2,"lon":2,"hacc":3}"#)
        guard case .location(let location) = message.body else { return XCTFail("not a location") }
        XCTAssertEqual(location.lat, 2)
        let visit = try MessageCodec.decode(#"{"v":1,"type":"visit","id":"x","t":1,"src":"s","device":"a","device":"b","lat":1,"lon":2,"hacc":3,"arrival":4}"#)
        guard case .visit(let decoded) = visit.body else { return XCTFail("not a visit") }
        XCTAssertEqual(decoded.device, "b")
    }

    func testMemberOrderDoesNotMatter() throws {
        let message = try MessageCodec.decode(#"{"hacc":3,"lon":2,"lat":1,"source":"gps","device":"d","src":"s","t":1,"id":"x","type":"location","v":1}"#)
        XCTAssertEqual(message, Message(body: .location(Location(device: "d", source: "gps", lat: 1, lon: 2, hacc: 3)), id: "x", t: 1, src: "s"))
    }

    func testUnknownTypeStillNeedsAValidEnvelope() {
        XCTAssertThrowsError(try MessageCodec.decode(#"{"v":1,"type":"battery","t":5,"src":"x"}"#)) { error in
            XCTAssertEqual((error as? ProtocolError)?.code, .missingField)
            XCTAssertEqual((error as? ProtocolError)?.field, "id")
        }
    }
}

import Foundation
import LocusProtocol
import XCTest

/// What `encode` writes: compact JSON that other tools read, no null or 0 standing in for
/// an unknown field, integers without ".0".
final class EncoderOutputTests: XCTestCase {
    func testNilOptionalsAreAbsentNotNull() {
        for body in Samples.minimalBodies {
            let text = String(decoding: MessageCodec.encode(Samples.message(body, seq: nil)), as: UTF8.self)
            XCTAssertFalse(text.contains("null"), text)
            XCTAssertFalse(text.contains("\"seq\""), text)
        }
        let text = String(decoding: MessageCodec.encode(Samples.message(.location(Location(device: "d", source: "gps", lat: 1, lon: 2, hacc: 3)))), as: UTF8.self)
        for absent in ["alt", "vacc", "speed", "speedAcc", "course", "courseAcc", "mode", "sats", "hdop", "tier", "age"] {
            XCTAssertFalse(text.contains("\"\(absent)\""), "\(absent) in \(text)")
        }
    }

    func testOutputIsCompactWithEnvelopeFirstAndIntegersWithoutFraction() {
        let message = Message(
            body: .location(Location(device: "d", source: "gps", lat: 47, lon: 8.5, hacc: 5, sats: 9)),
            id: "m-1", t: 1_715_000_000, src: "p", seq: 4)
        XCTAssertEqual(
            String(decoding: MessageCodec.encode(message), as: UTF8.self),
            #"{"v":1,"type":"location","id":"m-1","t":1715000000,"src":"p","seq":4,"device":"d","source":"gps","lat":47,"lon":8.5,"hacc":5,"sats":9}"#)
    }

    func testNumbersAreWrittenInShortPlainDecimals() throws {
        let expected: [(Double, String)] = [
            (0.5, "0.5"), (-0.25, "-0.25"), (0.001, "0.001"), (37.4219983, "37.4219983"), (123456.789, "123456.789"),
            (4.8, "4.8"), (-122.084, "-122.084"), (0.1 + 0.2, "0.30000000000000004"), (1e-7, "1e-07"), (2.5e20, "2.5e+20"),
            (-7, "-7"), (1_715_000_000, "1715000000"),
        ]
        for (number, text) in expected {
            let health = Message(body: .health(Health(service: "s", state: .ok, uptime: number)), id: "i", t: 0, src: "s")
            let encoded = String(decoding: MessageCodec.encode(health), as: UTF8.self)
            XCTAssertTrue(encoded.contains("\"uptime\":\(text)}") || encoded.contains("\"uptime\":\(text),"), "\(number) → \(encoded)")
            if number >= 0 { XCTAssertEqual(try MessageCodec.decode(encoded), health) }
        }
    }

    func testFoundationReadsEveryEncodedMessage() throws {
        for body in Samples.fullBodies + Samples.minimalBodies {
            let message = Samples.message(body)
            let object = try JSONSerialization.jsonObject(with: Data(MessageCodec.encode(message)))
            let dictionary = try XCTUnwrap(object as? [String: Any], body.type)
            XCTAssertEqual(dictionary["type"] as? String, body.type)
            XCTAssertEqual(dictionary["id"] as? String, message.envelope.id)
            XCTAssertEqual((dictionary["t"] as? NSNumber)?.doubleValue, message.envelope.t)
        }
        let location = Samples.message(Samples.fullBodies[0])
        let object = try JSONSerialization.jsonObject(with: Data(MessageCodec.encode(location))) as? [String: Any]
        // swift-corelibs-foundation parses 17-digit numbers a few ulps off; our own reader is exact (RoundTripTests).
        XCTAssertEqual(try XCTUnwrap((object?["lat"] as? NSNumber)?.doubleValue), 37.42199830000001, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap((object?["lon"] as? NSNumber)?.doubleValue), -122.08400000000002, accuracy: 1e-12)
    }

    func testFoundationOutputDecodes() throws {
        let fields: [String: Any] = [
            "v": 1, "type": "visit", "id": "f", "t": 1_715_000_000.5, "src": "py", "device": "d",
            "lat": 47.1, "lon": 8.2, "hacc": 20, "arrival": 1_715_000_000, "departure": 1_715_000_100,
        ]
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.prettyPrinted])
        let message = try MessageCodec.decode([UInt8](data))
        XCTAssertEqual(message.body, .visit(Visit(device: "d", lat: 47.1, lon: 8.2, hacc: 20, arrival: 1_715_000_000, departure: 1_715_000_100)))
    }

    func testNonFiniteNumbersAreNeverHiddenAsZero() {
        let message = Message(body: .location(Location(device: "d", source: "gps", lat: .nan, lon: 2, hacc: 3)), id: "x", t: 1, src: "s")
        let bytes = MessageCodec.encode(message)
        XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("\"lat\":0"))
        XCTAssertThrowsError(try MessageCodec.decode(bytes), "a receiver rejects what validate() would have refused")
    }
}

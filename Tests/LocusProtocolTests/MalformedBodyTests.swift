@testable import LocusProtocol
import XCTest

/// Every message type, broken systematically: each required field missing, each field of
/// the wrong JSON type, each range broken, non-finite numbers, bad envelopes and bad
/// syntax. Each must be rejected with the right `ProtocolError.Code` and field path.
final class MalformedBodyTests: XCTestCase {
    // MARK: - Running them

    func testEveryTypeRejectsAtLeastThirtyMalformedBodies() {
        XCTAssertEqual(Set(Self.specs.values.map { $0.0.type }).count, 18, "every wire type has a spec")
        var total = 0
        defer { print("malformed bodies checked: \(total)") }
        for (name, (body, fields)) in Self.specs.sorted(by: { $0.key < $1.key }) {
            XCTAssertNoThrow(try MessageCodec.decode(Samples.bytes(Samples.tree(body))), "\(name): the unbroken sample must decode")
            let cases = Self.commonCases(body) + Self.fieldCases(body, fields)
            XCTAssertGreaterThanOrEqual(cases.count, 30, name)
            total += cases.count
            for broken in cases {
                do {
                    let message = try MessageCodec.decode(broken.body)
                    XCTFail("\(name): \(broken.name) was accepted as \(message)")
                } catch {
                    XCTAssertEqual(error.code, broken.code, "\(name): \(broken.name): \(error.message)")
                    XCTAssertEqual(error.field, broken.field, "\(name): \(broken.name): \(error.message)")
                    XCTAssertFalse(error.message.isEmpty)
                    if let field = broken.field {
                        XCTAssertTrue(error.message.contains(field), "\(name): \(broken.name): message should name \(field): \(error.message)")
                    }
                }
            }
        }
    }

    func testMessagesNameTheFieldAndTheValue() {
        let body = #"{"v":1,"type":"location","id":"x","t":1,"src":"s","device":"d","source":"gps","lat":95,"lon":0,"hacc":1}"#
        XCTAssertThrowsError(try MessageCodec.decode(body)) { error in
            XCTAssertEqual((error as? ProtocolError)?.message, "location.lat: 95 is out of range [-90, 90]")
        }
    }

    func testValidateAppliesTheSameChecksBeforeSending() {
        var location = Location(device: "d", source: "gps", lat: 10, lon: 10, hacc: 5)
        location.course = 360
        XCTAssertThrowsError(try Message(body: .location(location), id: "x", t: 1, src: "s").validate()) { error in
            XCTAssertEqual((error as? ProtocolError)?.code, .outOfRange)
            XCTAssertEqual((error as? ProtocolError)?.field, "course")
        }
        location.course = nil
        location.lat = .nan
        XCTAssertThrowsError(try Message(body: .location(location), id: "x", t: 1, src: "s").validate()) { error in
            XCTAssertEqual((error as? ProtocolError)?.code, .notFinite)
        }
        location.lat = 10
        XCTAssertNoThrow(try Message(body: .location(location), id: "x", t: 1, src: "s").validate())
        XCTAssertThrowsError(try Message(body: .location(location), id: "x", t: .infinity, src: "s").validate())
        var mismatched = Message(body: .location(location), id: "x", t: 1, src: "s")
        mismatched.envelope.type = "visit"
        XCTAssertThrowsError(try mismatched.validate()) { error in
            XCTAssertEqual((error as? ProtocolError)?.field, "type")
        }
    }
}

@testable import LocusProtocol
import XCTest

/// Every message type, broken systematically: each required field missing, each field of
/// the wrong JSON type, each range broken, non-finite numbers, bad envelopes and bad
/// syntax. Each must be rejected with the right `ProtocolError.Code` and field path.
final class MalformedBodyTests: XCTestCase {
    /// What a field holds, which decides the wrong types and bad values to try.
    enum Kind { case text, id, number, integer, flag, word, object, array }

    struct Field {
        var path: [String]
        var kind: Kind
        var required: Bool
        /// Values in the right JSON type that break a rule, with the expected code and field.
        var bad: [(JSONValue, ProtocolError.Code, String?)] = []

        init(_ path: String, _ kind: Kind, required: Bool = false, bad: [(JSONValue, ProtocolError.Code, String?)] = []) {
            self.path = path.split(separator: ".").map(String.init)
            self.kind = kind
            self.required = required
            self.bad = bad
        }

        var dotted: String { path.joined(separator: ".") }
    }

    struct Case {
        var name: String
        var body: [UInt8]
        var code: ProtocolError.Code
        var field: String?
    }

    static func outOfRange(_ values: Double...) -> [(JSONValue, ProtocolError.Code, String?)] {
        values.map { (.number($0), .outOfRange, nil) }
    }

    static func invalid(_ values: JSONValue...) -> [(JSONValue, ProtocolError.Code, String?)] {
        values.map { ($0, .invalidValue, nil) }
    }

    static let polygonBad: [(JSONValue, ProtocolError.Code, String?)] = [
        (.array([]), .invalidValue, "region.shape.coordinates"),
        (.array([.array([point(0, 0), point(1, 0), point(1, 1), point(0, 1)])]), .invalidValue, "region.shape.coordinates[0]"),
        (.array([.array([point(0, 0), point(1, 0), point(0, 0)])]), .invalidValue, "region.shape.coordinates[0]"),
        (.array([.array([point(0, 0), point(1, 0), point(1, 91), point(0, 0)])]), .outOfRange, "region.shape.coordinates[0][2][1]"),
        (.array([.array([.array([.string("x"), .number(0)]), point(1, 0), point(1, 1), point(0, 0)])]), .wrongType, "region.shape.coordinates[0][0][0]"),
        (.array([.array([.array([.number(1)]), point(1, 0), point(1, 1), point(0, 0)])]), .invalidValue, "region.shape.coordinates[0][0]"),
        (.array([.number(1)]), .wrongType, "region.shape.coordinates[0]"),
    ]

    static func point(_ lon: Double, _ lat: Double) -> JSONValue { .array([.number(lon), .number(lat)]) }

    static let regionFields: [Field] = [
        Field("region", .object, required: true),
        Field("region.id", .text, required: true, bad: invalid(.string(""))),
        Field("region.shape", .object, required: true),
        Field("region.shape.type", .text, required: true, bad: invalid(.string("Point"), .string("circle"))),
        Field("region.notifyOnEntry", .flag),
        Field("region.notifyOnExit", .flag),
        Field("region.dwell", .number, bad: outOfRange(-1)),
    ]

    static let specs: [String: (Body, [Field])] = [
        "location": (Samples.fullBodies[0], [
            Field("device", .id, required: true), Field("source", .text, required: true, bad: invalid(.string(""))),
            Field("lat", .number, required: true, bad: outOfRange(95, -90.000001)),
            Field("lon", .number, required: true, bad: outOfRange(180.5, -181)),
            Field("hacc", .number, required: true, bad: outOfRange(0, -3)),
            Field("alt", .number), Field("vacc", .number, bad: outOfRange(0)), Field("speed", .number, bad: outOfRange(-0.1)),
            Field("speedAcc", .number, bad: outOfRange(0)), Field("course", .number, bad: outOfRange(360, -0.5, 720)),
            Field("courseAcc", .number, bad: outOfRange(-1)), Field("mode", .text, bad: invalid(.string("4d"), .string(""))),
            Field("sats", .integer, bad: outOfRange(-1)), Field("hdop", .number, bad: outOfRange(-1)),
            Field("tier", .text, bad: invalid(.string("great"))), Field("age", .number, bad: outOfRange(-2)),
        ]),
        "region.add/circle": (Samples.fullBodies[1], [
            Field("owner", .id, required: true),
            Field("region.shape.center", .array, required: true, bad: [
                (point(200, 0), .outOfRange, "region.shape.center[0]"), (point(0, -95), .outOfRange, "region.shape.center[1]"),
                (.array([.number(1)]), .invalidValue, "region.shape.center"),
            ]),
            Field("region.shape.radius", .number, required: true, bad: outOfRange(0, -5)),
            Field("region.devices", .array, bad: [
                (.array([.string("a b")]), .invalidValue, "region.devices[0]"), (.array([.number(5)]), .wrongType, "region.devices[0]"),
            ]),
        ] + regionFields),
        "region.remove": (Samples.fullBodies[2], [Field("owner", .id, required: true), Field("regionId", .text, required: true, bad: invalid(.string("")))]),
        "region.list/request": (Samples.fullBodies[3], [Field("owner", .id, required: true), Field("regions", .array)]),
        "region.requestState": (Samples.fullBodies[4], [
            Field("owner", .id, required: true), Field("regionId", .text, bad: invalid(.string(""))), Field("device", .id),
        ]),
        "region.added/polygon": (Samples.fullBodies[5], [
            Field("owner", .id, required: true), Field("re", .text, bad: invalid(.string(""))),
            Field("effectiveRadius", .number, bad: outOfRange(0)),
            Field("region.shape.coordinates", .array, required: true, bad: polygonBad),
        ] + regionFields),
        "region.removed": (Samples.fullBodies[6], [
            Field("owner", .id, required: true), Field("regionId", .text, required: true, bad: invalid(.string(""))), Field("re", .text),
        ]),
        "region.failed": (Samples.fullBodies[7], [
            Field("owner", .id, required: true), Field("regionId", .text, required: true),
            Field("code", .word, required: true), Field("message", .text, required: true), Field("re", .text),
        ]),
        "region.list/reply": (Samples.fullBodies[8], [
            Field("owner", .id, required: true), Field("re", .text),
            Field("regions", .array, bad: [
                (.array([.number(1)]), .wrongType, "regions[0]"), (.array([.object([:])]), .missingField, "regions[0].id"),
            ]),
        ]),
        "region.event": (Samples.fullBodies[9], [
            Field("owner", .id, required: true), Field("regionId", .text, required: true), Field("device", .id, required: true),
            Field("event", .word, required: true), Field("state", .word, required: true), Field("cause", .word, required: true),
            Field("location", .object, required: true), Field("location.lat", .number, required: true, bad: outOfRange(91)),
            Field("location.lon", .number, required: true, bad: outOfRange(-200)),
            Field("location.hacc", .number, required: true, bad: outOfRange(0)),
            Field("location.t", .number, required: true, bad: outOfRange(-1)),
            Field("crossingTime", .number, bad: outOfRange(-1)), Field("re", .text),
        ]),
        "auth.request": (Samples.fullBodies[10], [
            Field("client", .id, required: true), Field("level", .text, required: true, bad: invalid(.string("sometimes"))),
            Field("purpose", .text),
        ]),
        "auth.set": (Samples.fullBodies[11], [Field("client", .id, required: true), Field("status", .word), Field("accuracy", .word)]),
        "auth.status": (Samples.fullBodies[12], [
            Field("client", .id, required: true), Field("status", .word, required: true), Field("accuracy", .word, required: true),
            Field("temporaryFull", .object), Field("temporaryFull.purpose", .text, required: true),
            Field("temporaryFull.expires", .number, required: true, bad: outOfRange(-1)),
        ]),
        "motion": (Samples.fullBodies[13], [
            Field("device", .id, required: true), Field("activity", .word, required: true), Field("confidence", .word, required: true),
        ]),
        "control": (Samples.fullBodies[14], [
            Field("device", .id, required: true), Field("desiredAccuracy", .number, bad: outOfRange(0, -1)),
            Field("distanceFilter", .number, bad: outOfRange(-1)), Field("paused", .flag), Field("powerMode", .word),
            Field("reason", .text),
        ]),
        "visit": (Samples.fullBodies[15], [
            Field("device", .id, required: true), Field("lat", .number, required: true, bad: outOfRange(-91)),
            Field("lon", .number, required: true, bad: outOfRange(181)), Field("hacc", .number, required: true, bad: outOfRange(0)),
            Field("arrival", .number, required: true, bad: outOfRange(-1)), Field("departure", .number, bad: outOfRange(5, -1)),
        ]),
        "notification": (Samples.fullBodies[16], [
            Field("ref", .text, required: true, bad: invalid(.string(""))), Field("title", .text, required: true),
            Field("body", .text, required: true), Field("sink", .id, required: true), Field("status", .word, required: true),
        ]),
        "health": (Samples.fullBodies[17], [
            Field("service", .id, required: true), Field("state", .word, required: true), Field("uptime", .number, bad: outOfRange(-1)),
            Field("counters", .object, bad: [
                (.object(["sent": .number(1.5)]), .wrongType, "counters.sent"), (.object(["sent": .number(-1)]), .outOfRange, "counters.sent"),
                (.object(["sent": .string("1")]), .wrongType, "counters.sent"),
            ]),
            Field("detail", .object, bad: [(.object(["gps": .number(1)]), .wrongType, "detail.gps")]),
        ]),
        "error": (Samples.fullBodies[18], [
            Field("code", .text, required: true, bad: invalid(.string(""))), Field("message", .text, required: true),
            Field("topic", .text), Field("ref", .text),
        ]),
    ]

    // MARK: - Generating the cases

    static func wrongTypes(for kind: Kind) -> [JSONValue] {
        switch kind {
        case .text, .id, .word: return [.number(5), .bool(true), .array([]), .object([:])]
        case .number: return [.string("1"), .bool(false), .array([]), .object([:])]
        case .integer: return [.string("1"), .bool(false), .number(2.5), .object([:])]
        case .flag: return [.string("true"), .number(1), .array([])]
        case .object: return [.number(1), .string("x"), .array([])]
        case .array: return [.number(1), .string("x"), .object([:])]
        }
    }

    static func bytes(_ tree: [String: JSONValue], replacing field: [String], with raw: String) -> [UInt8] {
        let marked = JSONValue.object(tree).setting(field[...], to: .string("@@RAW@@")).objectValue!
        let text = String(decoding: Samples.bytes(marked), as: UTF8.self)
        return Array(text.replacingOccurrences(of: "\"@@RAW@@\"", with: raw).utf8)
    }

    static func fieldCases(_ body: Body, _ fields: [Field]) -> [Case] {
        let tree = Samples.tree(body)
        var cases: [Case] = []
        func add(_ name: String, _ path: [String], _ value: JSONValue?, _ code: ProtocolError.Code, _ field: String?) {
            let mutated = JSONValue.object(tree).setting(path[...], to: value).objectValue!
            cases.append(Case(name: name, body: Samples.bytes(mutated), code: code, field: field))
        }
        for field in fields {
            if field.required { add("\(field.dotted) missing", field.path, nil, .missingField, field.dotted) }
            if field.required && field.kind != .object { add("\(field.dotted) null", field.path, .null, .wrongType, field.dotted) }
            for wrong in wrongTypes(for: field.kind) {
                add("\(field.dotted) = \(wrong.shortDescription)", field.path, wrong, .wrongType, field.dotted)
            }
            if field.kind == .id {
                for bad in ["", "a b", "tab\there", "new\nline", String(repeating: "x", count: 201)] {
                    add("\(field.dotted) = invalid id \(bad.debugDescription)", field.path, .string(bad), .invalidValue, field.dotted)
                }
            }
            if field.kind == .word {
                for bad in ["sideways", "", "ENTER"] {
                    add("\(field.dotted) = unknown word \(bad)", field.path, .string(bad), .invalidValue, field.dotted)
                }
            }
            if field.kind == .number || field.kind == .integer {
                for raw in ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"] {
                    cases.append(Case(name: "\(field.dotted) = \(raw)", body: bytes(tree, replacing: field.path, with: raw), code: .notFinite, field: field.dotted))
                }
            }
            for (value, code, path) in field.bad {
                add("\(field.dotted) = \(value.shortDescription)", field.path, value, code, path ?? field.dotted)
            }
        }
        return cases
    }

    /// Envelope and syntax faults, the same for every type.
    static func commonCases(_ body: Body) -> [Case] {
        let tree = Samples.tree(body)
        let valid = Samples.bytes(tree)
        var cases: [Case] = []
        func add(_ name: String, _ key: String, _ value: JSONValue?, _ code: ProtocolError.Code, _ field: String?) {
            var mutated = tree
            mutated[key] = value
            cases.append(Case(name: name, body: Samples.bytes(mutated), code: code, field: field))
        }
        for key in ["v", "type", "id", "t", "src"] { add("envelope \(key) missing", key, nil, .missingField, key) }
        add("v = 2", "v", .number(2), .unsupportedVersion, "v")
        add("v = 0", "v", .number(0), .unsupportedVersion, "v")
        add("v = \"1\"", "v", .string("1"), .wrongType, "v")
        add("v = 1.5", "v", .number(1.5), .wrongType, "v")
        add("type = 5", "type", .number(5), .wrongType, "type")
        add("id = \"\"", "id", .string(""), .invalidValue, "id")
        add("id = 7", "id", .number(7), .wrongType, "id")
        add("t = -1", "t", .number(-1), .outOfRange, "t")
        add("t = \"now\"", "t", .string("now"), .wrongType, "t")
        add("src = \"\"", "src", .string(""), .invalidValue, "src")
        add("src = null", "src", .null, .wrongType, "src")
        add("seq = -1", "seq", .number(-1), .outOfRange, "seq")
        add("seq = 1.5", "seq", .number(1.5), .wrongType, "seq")
        add("seq = \"1\"", "seq", .string("1"), .wrongType, "seq")
        cases.append(Case(name: "t = NaN", body: bytes(tree, replacing: ["t"], with: "NaN"), code: .notFinite, field: "t"))
        cases.append(Case(name: "t = 1e999", body: bytes(tree, replacing: ["t"], with: "1e999"), code: .notFinite, field: "t"))

        let text = String(decoding: valid, as: UTF8.self)
        func syntax(_ name: String, _ text: String, _ code: ProtocolError.Code = .invalidJSON) {
            cases.append(Case(name: name, body: Array(text.utf8), code: code, field: nil))
        }
        syntax("truncated in the middle", String(text.prefix(text.count / 2)))
        syntax("last brace missing", String(text.dropLast()))
        syntax("trailing garbage", text + "x")
        syntax("two objects", text + text)
        syntax("trailing comma", String(text.dropLast()) + ",}")
        syntax("single quotes", text.replacingOccurrences(of: "\"", with: "'"))
        syntax("empty body", "")
        syntax("whitespace only", " \n ")
        syntax("array of the body", "[" + text + "]", .notAnObject)
        syntax("a string", "\"" + body.type + "\"", .notAnObject)
        syntax("a number", "42", .notAnObject)
        syntax("null", "null", .notAnObject)
        syntax("raw control character in a string", String(text.dropLast()) + ",\"note\":\"a\u{01}b\"}")
        syntax("bad escape", String(text.dropLast()) + ",\"note\":\"a\\qb\"}")
        syntax("lone surrogate", String(text.dropLast()) + ",\"note\":\"\\ud800\"}")
        syntax("leading zero", String(text.dropLast()) + ",\"note\":012}")
        syntax("bare word", String(text.dropLast()) + ",\"note\":yes}")
        var invalidUTF8 = Array(text.dropLast().utf8)
        invalidUTF8 += Array(",\"note\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        cases.append(Case(name: "invalid UTF-8", body: invalidUTF8, code: .invalidJSON, field: nil))
        let padding = String(repeating: "x", count: MessageCodec.maximumBodyBytes)
        syntax("larger than 1 MiB", String(text.dropLast()) + ",\"pad\":\"\(padding)\"}", .tooLarge)
        return cases
    }

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

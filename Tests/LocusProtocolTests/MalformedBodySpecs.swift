@testable import LocusProtocol
import XCTest

/// Every wire type's fields: what each holds, whether it is required, and the values that break its rules.
extension MalformedBodyTests {
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

}

/// `bus.replay` (topic `bus.replay`): a subscriber that (re)starts asks the bus to re-send
/// the event messages it may have missed while it was not subscribed — ZeroMQ PUB/SUB
/// drops whatever is published to an absent subscriber. The bus answers by re-sending, in
/// their original order and with their original ids, every message of its replay ring
/// whose topic starts with one of `prefixes` and that it received after `since`, then a
/// `bus.replayed` marker on `bus.replayed.<requester>`. The request's envelope `id` is the
/// request id the marker carries as `re`. The bus never forwards the request itself.
///
/// Not one of docs/protocol.md's v1 types: the codec keeps it as `.other`, and this type reads
/// and writes that form, so older readers simply ignore it.
public struct BusReplayRequest: Sendable, Equatable {
    public static let type = "bus.replay"
    /// The topic requests are published on.
    public static let topic = "bus.replay"

    /// Names the marker topic `bus.replayed.<requester>`; a valid id (Topic.isValidID).
    public var requester: String
    /// Topic prefixes wanted, e.g. `region.event.`; at least one.
    public var prefixes: [String]
    /// Bus receive time (seconds since the epoch, the bus's clock) after which messages are wanted; nil: all the ring holds.
    public var since: Double?

    public init(requester: String, prefixes: [String], since: Double? = nil) {
        self.requester = requester
        self.prefixes = prefixes
        self.since = since
    }

    /// The topic of the answer's marker.
    public var markerTopic: String { BusReplayed.topic(requester) }

    /// Reads a request from the fields of an `.other(type: "bus.replay", …)` body, or says which field is wrong.
    public init(fields: JSONValue) throws(ProtocolError) {
        guard let object = fields.objectValue else { throw ProtocolError(code: .notAnObject, message: "bus.replay: the body must be an object") }
        guard case .string(let requester)? = object["requester"] else {
            throw ProtocolError(code: .missingField, field: "requester", message: "bus.replay needs a string 'requester'")
        }
        guard Topic.isValidID(requester) else {
            throw ProtocolError(code: .invalidValue, field: "requester", message: "bus.replay: 'requester' \"\(requester)\" is not a valid id")
        }
        guard case .array(let items)? = object["prefixes"], !items.isEmpty else {
            throw ProtocolError(code: .missingField, field: "prefixes", message: "bus.replay needs a non-empty array 'prefixes'")
        }
        var prefixes: [String] = []
        for item in items {
            guard case .string(let prefix) = item, Topic.isValidTopic(prefix) else {
                throw ProtocolError(code: .invalidValue, field: "prefixes", message: "bus.replay: every prefix must be a non-empty topic prefix")
            }
            prefixes.append(prefix)
        }
        var since: Double?
        if let value = object["since"] {
            guard case .number(let number) = value else {
                throw ProtocolError(code: .wrongType, field: "since", message: "bus.replay: 'since' must be a number")
            }
            guard number.isFinite, number >= 0 else {
                throw ProtocolError(code: .outOfRange, field: "since", message: "bus.replay: 'since' must be a finite time ≥ 0")
            }
            since = number
        }
        self.init(requester: requester, prefixes: prefixes, since: since)
    }

    /// The body to publish on `BusReplayRequest.topic`.
    public var body: Body {
        var fields: [String: JSONValue] = ["requester": .string(requester), "prefixes": .array(prefixes.map { .string($0) })]
        if let since { fields["since"] = .number(since) }
        return .other(type: Self.type, fields: .object(fields))
    }
}

/// `bus.replayed` (topic `bus.replayed.<requester>`): the end of the bus's answer to a
/// `bus.replay` request; everything replayed was sent before it, so the requester can
/// release the live messages it held back and keep the order.
public struct BusReplayed: Sendable, Equatable {
    public static let type = "bus.replayed"
    public static let topicPrefix = "bus.replayed."

    public static func topic(_ requester: String) -> String { topicPrefix + requester }

    /// The envelope id of the request this answers.
    public var re: String
    /// How many messages were re-sent.
    public var count: Int

    public init(re: String, count: Int) {
        self.re = re
        self.count = count
    }

    /// Reads a marker from the fields of an `.other(type: "bus.replayed", …)` body, or says which field is wrong.
    public init(fields: JSONValue) throws(ProtocolError) {
        guard let object = fields.objectValue else { throw ProtocolError(code: .notAnObject, message: "bus.replayed: the body must be an object") }
        guard case .string(let re)? = object["re"], !re.isEmpty else {
            throw ProtocolError(code: .missingField, field: "re", message: "bus.replayed needs a non-empty string 're'")
        }
        guard case .number(let number)? = object["count"] else {
            throw ProtocolError(code: .missingField, field: "count", message: "bus.replayed needs a number 'count'")
        }
        guard number.isFinite, number >= 0, number == number.rounded(), number < 9.0e15 else {
            throw ProtocolError(code: .outOfRange, field: "count", message: "bus.replayed: 'count' must be an integer ≥ 0")
        }
        self.init(re: re, count: Int(number))
    }

    public var body: Body {
        .other(type: Self.type, fields: .object(["re": .string(re), "count": .number(Double(count))]))
    }
}

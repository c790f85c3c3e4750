import LocusProtocol
import XCTest

/// `bus.replay` / `bus.replayed`: encode → decode through the codec, and each bad field named.
final class BusReplayTests: XCTestCase {
    func testRequestRoundTripsThroughTheCodec() throws {
        let request = BusReplayRequest(requester: "notifier-42", prefixes: ["region.event.", "visit."], since: 1_790_000_123.5)
        let message = Message(body: request.body, id: "r1", t: 1_790_000_200, src: "notifier/main", seq: 3)
        let decoded = try MessageCodec.decode(MessageCodec.encode(message))
        XCTAssertEqual(decoded, message)
        guard case .other(BusReplayRequest.type, let fields) = decoded.body else { return XCTFail("not kept as bus.replay") }
        XCTAssertEqual(try BusReplayRequest(fields: fields), request)
        XCTAssertEqual(request.markerTopic, "bus.replayed.notifier-42")
    }

    func testRequestWithoutSinceMeansEverythingKept() throws {
        let decoded = try MessageCodec.decode(#"{"v":1,"type":"bus.replay","id":"q","t":1,"src":"x","requester":"n","prefixes":["visit."]}"#)
        guard case .other(_, let fields) = decoded.body else { return XCTFail() }
        XCTAssertEqual(try BusReplayRequest(fields: fields), BusReplayRequest(requester: "n", prefixes: ["visit."], since: nil))
    }

    func testMarkerRoundTripsThroughTheCodec() throws {
        let marker = BusReplayed(re: "r1", count: 17)
        let message = Message(body: marker.body, id: "m1", t: 5, src: "bus/main")
        let decoded = try MessageCodec.decode(MessageCodec.encode(message))
        guard case .other(BusReplayed.type, let fields) = decoded.body else { return XCTFail("not kept as bus.replayed") }
        XCTAssertEqual(try BusReplayed(fields: fields), marker)
        XCTAssertEqual(BusReplayed.topic("n-1"), "bus.replayed.n-1")
    }

    func testBadRequestsNameTheField() {
        let cases: [(String, String)] = [
            (#"{"prefixes":["visit."]}"#, "requester"),
            (#"{"requester":"has space","prefixes":["visit."]}"#, "requester"),
            (#"{"requester":"n"}"#, "prefixes"),
            (#"{"requester":"n","prefixes":[]}"#, "prefixes"),
            (#"{"requester":"n","prefixes":["a b"]}"#, "prefixes"),
            (#"{"requester":"n","prefixes":[3]}"#, "prefixes"),
            (#"{"requester":"n","prefixes":["visit."],"since":"yesterday"}"#, "since"),
            (#"{"requester":"n","prefixes":["visit."],"since":-1}"#, "since"),
        ]
        for (json, field) in cases {
            XCTAssertThrowsError(try BusReplayRequest(fields: Self.fields(json)), json) { error in
                XCTAssertEqual((error as? ProtocolError)?.field, field, json)
            }
        }
    }

    func testBadMarkersNameTheField() {
        for (json, field) in [(#"{"count":1}"#, "re"), (#"{"re":"x"}"#, "count"), (#"{"re":"x","count":1.5}"#, "count"),
                              (#"{"re":"x","count":-2}"#, "count")] {
            XCTAssertThrowsError(try BusReplayed(fields: Self.fields(json)), json) { error in
                XCTAssertEqual((error as? ProtocolError)?.field, field, json)
            }
        }
    }

    /// The fields of a body given without its envelope, read by the real codec.
    private static func fields(_ json: String) -> JSONValue {
        let body = #"{"v":1,"type":"bus.test","id":"i","t":1,"src":"s","# + json.dropFirst()
        guard let message = try? MessageCodec.decode(body), case .other(_, let fields) = message.body else { return .null }
        return fields
    }
}

import LocusMap
import Foundation
import LocusProtocol
import XCTest

final class MapFeedTests: XCTestCase {
    private var counter = 0

    private func message(_ body: Body, t: Double = 1_700_000_000) -> (Message, [UInt8]) {
        counter += 1
        let message = Message(body: body, id: "m\(counter)", t: t, src: "test/unit", seq: counter)
        return (message, MessageCodec.encode(message))
    }

    private func feed(_ feed: inout MapFeed, _ topic: String, _ body: Body) -> MapEvent? {
        let (message, raw) = message(body)
        return feed.accept(topic: topic, message: message, raw: raw)
    }

    private func location(_ device: String, lat: Double, hacc: Double, mode: String? = nil) -> Body {
        var value = Location(device: device, source: "fused", lat: lat, lon: 121.47, hacc: hacc)
        value.mode = mode
        return .location(value)
    }

    private func enter(_ device: String) -> Body {
        .regionEvent(RegionEvent(owner: "o", regionId: "store", device: device, event: .enter, state: .inside, cause: .crossing,
                                 location: FixRef(lat: 31.2291234, lon: 121.4712345, hacc: 4, t: 1_700_000_000), crossingTime: 1_699_999_999))
    }

    func testFullViewerSubscribesToFusedAndForwardsBodiesUnchanged() throws {
        var full = MapFeed(accuracy: .full)
        XCTAssertEqual(full.subscriptions, ["location.fused.", "location.late.", "region.event.", "region.state.", "motion.", "health."])
        let (message, raw) = message(location("car", lat: 31.2, hacc: 5))
        XCTAssertEqual(full.accept(topic: "location.fused.car", message: message, raw: raw), MapEvent(kind: .location, json: raw))
        // A late fix is history for the track, sent as its own kind so the marker does not move back.
        XCTAssertEqual(full.accept(topic: "location.late.car", message: message, raw: raw), MapEvent(kind: .late, json: raw))
        XCTAssertNil(feed(&full, "location.approx.car", location("car", lat: 31.2, hacc: 2000)))
        let event = try XCTUnwrap(feed(&full, "region.event.o", enter("car")))
        XCTAssertEqual(event.kind, .regionEvent)
        XCTAssertTrue(String(decoding: event.json, as: UTF8.self).contains("31.2291234"))
    }

    func testReducedViewerNeverReceivesFinePositions() throws {
        var reduced = MapFeed(accuracy: .reduced)
        XCTAssertFalse(reduced.subscriptions.contains { "location.fused.car".hasPrefix($0) || "location.late.car".hasPrefix($0) })
        XCTAssertNil(feed(&reduced, "location.fused.car", location("car", lat: 31.2291234, hacc: 4)))
        XCTAssertNil(feed(&reduced, "location.late.car", location("car", lat: 31.2291234, hacc: 4)))
        // Before any approximate fix, the event carries no position at all.
        let early = try XCTUnwrap(feed(&reduced, "region.event.o", enter("car")))
        let earlyObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(early.json)) as? [String: Any])
        XCTAssertNil(earlyObject["location"])
        XCTAssertNil(earlyObject["crossingTime"])
        XCTAssertEqual(earlyObject["approximate"] as? Bool, true)
        XCTAssertNotNil(feed(&reduced, "location.approx.car", location("car", lat: 31.23, hacc: 1767, mode: "approx")))
        let late = try XCTUnwrap(feed(&reduced, "region.event.o", enter("car")))
        let lateObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(late.json)) as? [String: Any])
        let fix = try XCTUnwrap(lateObject["location"] as? [String: Double])
        XCTAssertEqual(fix["lat"], 31.23)
        XCTAssertEqual(fix["hacc"], 1767)
        let everything = reduced.replay().map { String(decoding: $0.json, as: UTF8.self) }.joined()
        XCTAssertFalse(everything.contains("31.2291234"))
    }

    func testReplayKeepsTrackTailsRegionsAndRecentEventsWithinItsBound() throws {
        var full = MapFeed(accuracy: .full)
        full.trackLength = 5
        for step in 0..<12 { _ = feed(&full, "location.fused.car", location("car", lat: 31 + Double(step) * 0.001, hacc: 5)) }
        let region = Region(id: "store", shape: .circle(center: GeoPoint(lon: 121.47, lat: 31.23), radius: 150))
        _ = feed(&full, "region.state.o", .regionAdded(RegionAdded(owner: "o", region: region)))
        _ = feed(&full, "region.state.o", .regionList(RegionListReply(owner: "o", regions: [
            region, Region(id: "home", shape: .circle(center: GeoPoint(lon: 121.4, lat: 31.2), radius: 100)),
        ])))
        _ = feed(&full, "region.event.o", enter("car"))
        let replay = full.replay()
        XCTAssertEqual(replay.map(\.kind), [.region, .region, .location, .location, .location, .location, .location, .regionEvent])
        let lastFix = try MessageCodec.decode(replay[6].json)
        guard case .location(let last) = lastFix.body else { return XCTFail() }
        XCTAssertEqual(last.lat, 31.011, accuracy: 1e-9)
        _ = feed(&full, "region.state.o", .regionRemoved(RegionRemoved(owner: "o", regionId: "store")))
        XCTAssertEqual(full.replay().filter { $0.kind == .region }.count, 1)
        // A tight bound shortens the tails to the last fix before anything else is left out.
        let small = full.replay(maximumBytes: 1200)
        XCTAssertEqual(small.filter { $0.kind == .location }.count, 1)
        XCTAssertEqual(small.last?.kind, .regionEvent)
    }

    func testServerSentEventCannotBeSplitByLineBreaksInTheBody() {
        let event = MapEvent(kind: .health, json: Array("{\"a\":\n1,\r\"b\":2}".utf8))
        XCTAssertEqual(String(decoding: event.serialized, as: UTF8.self), "event: health\ndata: {\"a\": 1, \"b\":2}\n\n")
    }

    func testHealthSaysWhoSentItAsTheBusSawIt() throws {
        var full = MapFeed(accuracy: .full)
        let unknown = try XCTUnwrap(feed(&full, "health.geofence", .health(Health(service: "geofence", state: .ok))))
        XCTAssertFalse(String(decoding: unknown.json, as: UTF8.self).contains("sender"), "nothing said yet, nothing shown")
        let bus = Health(service: "bus", state: .ok, detail: ["authority": "allowList", "senders": "geofence=geo1,provider=gps0"])
        _ = feed(&full, "health.bus", .health(bus))
        let event = try XCTUnwrap(feed(&full, "health.provider", .health(Health(service: "provider", state: .ok))))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(event.json)) as? [String: Any])
        XCTAssertEqual(object["sender"] as? String, "gps0")
        XCTAssertEqual(object["service"] as? String, "provider")
    }
}

import LocusBroker
import XCTest

final class ReplayRingTests: XCTestCase {
    private func topics(_ entries: [ReplayRing.Entry]) -> [String] {
        entries.map { String(decoding: $0.topic, as: UTF8.self) + "=" + String(decoding: $0.body, as: UTF8.self) }
    }

    func testKeepsOnlyEventTopicsInArrivalOrder() {
        var ring = ReplayRing()
        ring.store(topic: "region.event.app", body: Array("{1}".utf8), now: 10)
        ring.store(topic: "location.fused.a", body: Array("{x}".utf8), now: 11)
        ring.store(topic: "visit.car", body: Array("{2}".utf8), now: 12)
        ring.store(topic: "health.bus", body: Array("{h}".utf8), now: 13)
        ring.store(topic: "region.event.app", body: Array("{3}".utf8), now: 14)
        XCTAssertEqual(ring.count, 3, "positions and health are not events")
        XCTAssertEqual(topics(ring.matching(prefixes: ["region.event.", "visit."], since: nil, now: 20)),
                       ["region.event.app={1}", "visit.car={2}", "region.event.app={3}"])
        XCTAssertEqual(topics(ring.matching(prefixes: ["visit."], since: nil, now: 20)), ["visit.car={2}"])
    }

    func testSinceIsExclusiveAndTheAgeBoundApplies() {
        var ring = ReplayRing(maxAgeSeconds: 100)
        for second in 0..<10 { ring.store(topic: "region.event.o", body: Array("{\(second)}".utf8), now: Double(second) * 30) }
        // since 180 s: the ones received at 210, 240, 270.
        XCTAssertEqual(topics(ring.matching(prefixes: ["region.event."], since: 180, now: 270)),
                       ["region.event.o={7}", "region.event.o={8}", "region.event.o={9}"])
        // At 300 nothing older than 200 is replayed, however early `since` is.
        XCTAssertEqual(topics(ring.matching(prefixes: ["region.event."], since: 0, now: 300)),
                       ["region.event.o={7}", "region.event.o={8}", "region.event.o={9}"])
    }

    func testCapacityOverwritesTheOldestAndKeepsOrderAcrossTheWrap() {
        var ring = ReplayRing(capacity: 4)
        for index in 0..<11 { ring.store(topic: "notify.jsonl", body: Array("{\(index)}".utf8), now: Double(index)) }
        XCTAssertEqual(ring.count, 4)
        XCTAssertEqual(ring.overwritten, 7)
        XCTAssertEqual(topics(ring.matching(prefixes: ["notify."], since: nil, now: 11)),
                       ["notify.jsonl={7}", "notify.jsonl={8}", "notify.jsonl={9}", "notify.jsonl={10}"])
        XCTAssertEqual(topics(ring.matching(prefixes: ["notify."], since: 8.5, now: 11)), ["notify.jsonl={9}", "notify.jsonl={10}"])
    }

    func testZeroCapacityOrNoPrefixesKeepsNothing() {
        var off = ReplayRing(capacity: 0)
        off.store(topic: "region.event.a", body: Array("{}".utf8), now: 1)
        var none = ReplayRing(prefixes: [])
        none.store(topic: "region.event.a", body: Array("{}".utf8), now: 1)
        XCTAssertEqual(off.count + none.count, 0)
    }

    func testTheClockIsReadOnlyForKeptTopics() {
        var ring = ReplayRing()
        var reads = 0
        let topic = Array("location.raw.gps".utf8), body = Array("{}".utf8)
        topic.withUnsafeBytes { t in body.withUnsafeBytes { b in
            _ = ring.store(topic: t, body: b, now: { reads += 1; return 1 })
        } }
        XCTAssertEqual(reads, 0, "the hot path must not read the clock for topics the ring does not keep")
    }
}

import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusService
import LocusProtocol
import XCTest

final class BrokerTests: XCTestCase {
    func testLateJoinerGetsLastValueOfStateTopicsOnly() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let publisher = try bus.publisher()
        let early = try bus.subscriber("")
        try bus.waitUntilLive(early, publisher: publisher, topic: "probe.x")
        let first = try publisher.publish(sampleLocation(lat: 31.1), topic: Topic.locationRaw("truck-7"), t: 10)
        let second = try publisher.publish(sampleLocation(lat: 31.2), topic: Topic.locationRaw("truck-7"), t: 11)
        let regionEvent = RegionEvent(owner: "alice", regionId: "store", device: "truck-7", event: .enter, state: .inside,
                                      cause: .crossing, location: FixRef(lat: 31.2, lon: 121.47, hacc: 5, t: 11))
        let event = try publisher.publish(.regionEvent(regionEvent), topic: Topic.regionEvent("alice"), t: 11)
        // The early subscriber sees all three, so the bus has processed them before the late one joins.
        _ = try bus.waitFor(early) { _, message in message.envelope.id == event.envelope.id }

        let late = try bus.subscriber("location.", "region.event.")
        let replayed = try bus.waitFor(late) { topic, _ in topic == Topic.locationRaw("truck-7") }
        XCTAssertEqual(replayed?.envelope.id, second.envelope.id, "the last value, not an older one")
        XCTAssertNotEqual(replayed?.envelope.id, first.envelope.id)
        // Events are not state: nothing of region.event.* is replayed. A fresh message proves the stream is live
        // and that no replayed event came before it.
        let marker = try publisher.publish(sampleLocation(device: "marker"), topic: Topic.locationRaw("marker"), t: 12)
        var sawEvent = false
        _ = try bus.waitFor(late) { topic, message in
            if topic.hasPrefix("region.event.") { sawEvent = true }
            return message.envelope.id == marker.envelope.id
        }
        XCTAssertFalse(sawEvent)
    }

    func testSlowSubscriberLosesAreCountedAndOthersGetEverything() throws {
        let bus = BrokerHarness(highWaterMark: 200, healthInterval: 0.1)
        defer { bus.stop() }
        let publisher = try bus.publisher()
        let slow = try ZMQSocket(context: bus.context, type: .sub)
        try slow.setOption(ZMQ_RCVHWM, 50)
        try slow.connect(bus.configuration.subEndpoint)
        try slow.subscribe("data.")
        let fast = try bus.subscriber("data.", "health.bus")
        try bus.waitUntilLive(fast, publisher: publisher, topic: "data.probe")
        // The slow subscriber joined before the fast one's probe got through, so it is live as well.

        var poller = Poller()
        poller.add(fast.socket)
        var received = 0
        let total = 5_000
        var healthDropped = 0
        var sent = 0
        while sent < total {
            for _ in 0..<100 {
                try publisher.publish(sampleLocation(), topic: "data.x", t: Double(sent))
                sent += 1
            }
            // Pace by the fast subscriber so only the slow one ever reaches its bound.
            while received < sent {
                XCTAssertTrue(try poller.poll(timeoutMilliseconds: 5000)[0], "fast subscriber starved")
                while let item = try fast.receive(dontWait: true) {
                    if case let .message(topic, message, _) = item {
                        if topic == "data.x" { received += 1 }
                        if case let .health(health) = message.body { healthDropped = health.counters["dropped"] ?? 0 }
                    }
                }
            }
        }
        XCTAssertEqual(received, total, "a slow subscriber must not cost the others anything")
        let health = try bus.waitFor(fast) { _, message in
            if case let .health(health) = message.body { return (health.counters["dropped"] ?? 0) > 0 }
            return false
        }
        guard case let .health(report)? = health?.body else { return XCTFail("no health") }
        XCTAssertGreaterThan(report.counters["dropped"] ?? 0, 0)
        XCTAssertGreaterThanOrEqual(report.counters["dropped"] ?? 0, healthDropped)
        slow.close()
    }

    func testSequenceGapsAreSeenByReceivers() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let publisher = try bus.publisher(source: "provider/gap")
        let subscriber = try bus.subscriber("location.")
        try bus.waitUntilLive(subscriber, publisher: publisher, topic: "location.probe")
        let sender = try ZMQSocket(context: bus.context, type: .pub)
        defer { sender.close() }
        try sender.connect(bus.configuration.pubEndpoint)
        // Hand-made envelopes so tseq 3 can be skipped, as a HWM drop upstream would.
        let sub2 = try bus.subscriber("location.gaps")
        var poller = Poller()
        poller.add(sub2.socket)
        var attempt = 0
        repeat {
            attempt += 1
            try sender.send(topic: "location.gaps.probe", body: MessageCodec.encode(
                Message(body: sampleLocation(), id: "probe-\(attempt)", t: 1, src: "probe/\(attempt)", seq: 1)))
        } while try !poller.poll(timeoutMilliseconds: 10)[0] && attempt < 500
        for seq in [1, 2, 4, 5, 9] {
            let message = Message(body: sampleLocation(), id: "gap-\(seq)", t: Double(seq), src: "provider/gappy", seq: seq,
                                  tseq: seq)
            try sender.send(topic: Topic.locationRaw("gappy"), body: MessageCodec.encode(message))
        }
        _ = try bus.waitFor(subscriber) { _, message in message.envelope.id == "gap-9" }
        XCTAssertEqual(subscriber.sequences.missing, 4, "tseq 3, 6, 7 and 8 are missing")
    }

    func testGarbageFromAPeerIsRejectedCountedAndReported() throws {
        let bus = BrokerHarness(healthInterval: 0.1)
        defer { bus.stop() }
        let publisher = try bus.publisher()
        let subscriber = try bus.subscriber("location.", "error.bus", "health.bus")
        try bus.waitUntilLive(subscriber, publisher: publisher, topic: "location.probe")
        let raw = try ZMQSocket(context: bus.context, type: .pub)
        defer { raw.close() }
        try raw.connect(bus.configuration.pubEndpoint)
        var poller = Poller()
        poller.add(subscriber.socket)
        // Until the raw socket's connection is up, its sends vanish; repeat the garbage with a valid marker.
        var marker: Message?
        var errorReport: ErrorReport?
        for attempt in 0..<500 where marker == nil {
            try raw.send(Array("only-one-frame".utf8))
            try raw.send(Array("a".utf8), more: true)
            try raw.send(Array("{}".utf8), more: true)
            try raw.send(Array("third".utf8))
            try raw.send(topic: "location.bad", body: Array("not json".utf8))
            try raw.send(topic: "location has space", body: Array("{}".utf8))
            try raw.send(Array(), more: true)
            try raw.send(Array("{}".utf8))
            let ok = Message(body: sampleLocation(), id: "after-garbage-\(attempt)", t: 1, src: "raw/1", seq: attempt + 1)
            try raw.send(topic: Topic.locationRaw("ok"), body: MessageCodec.encode(ok))
            if try poller.poll(timeoutMilliseconds: 10)[0] {
                while let item = try subscriber.receive(dontWait: true) {
                    guard case let .message(_, message, _) = item else { continue }
                    if message.envelope.id.hasPrefix("after-garbage") { marker = message }
                    if case let .error(report) = message.body { errorReport = report }
                }
            }
        }
        XCTAssertNotNil(marker, "valid traffic still flows after garbage")
        if errorReport == nil {
            let error = try bus.waitFor(subscriber) { topic, _ in topic == Topic.error("bus") }
            if case let .error(report)? = error?.body { errorReport = report }
        }
        XCTAssertEqual(errorReport?.code, "badFraming")
        let health = try bus.waitFor(subscriber) { _, message in
            if case let .health(health) = message.body { return (health.counters["rejected"] ?? 0) >= 5 }
            return false
        }
        XCTAssertNotNil(health)
    }
}

import LocusService
import XCTest

/// The per-message bookkeeping of the receive path, against simple reference models.
final class ReceiveBookkeepingTests: XCTestCase {
    func testRecentIDsMatchARingOfTheLastNDistinctIDs() {
        for capacity in [1, 2, 5, 64, 1000] {
            var recent = RecentIDs(capacity: capacity)
            var order: [String] = []  // reference: distinct ids in arrival order, newest last
            var random = SplitMix(state: UInt64(capacity))
            for _ in 0..<20_000 {
                let id = "id-\(random.next(capacity * 3))"
                let expected = !order.suffix(capacity).contains(id)
                XCTAssertEqual(recent.insert(id), expected, "capacity \(capacity), id \(id)")
                if expected { order.append(id) }
                if order.count > 4 * capacity { order.removeFirst(order.count - capacity) }
            }
        }
    }

    func testSequenceTrackerMatchesADictionaryPerPublisherAndTopic() {
        var tracker = SequenceTracker()
        var last: [String: Int] = [:]
        var missing = 0
        var restarts = 0
        var random = SplitMix(state: 7)
        for _ in 0..<20_000 {
            // Runs from one publisher, switches, restarts and absent seqs, all mixed.
            let src = "src-\(random.next(4))"
            let topic = "location.fused.d\(random.next(6))"
            let key = src + " " + topic
            let seq: Int? = random.next(20) == 0 ? nil : random.next(30) == 0 ? 0 : (last[key] ?? 0) + 1 + random.next(3)
            var gap = 0
            if let seq {
                if let previous = last[key] {
                    if seq <= previous { restarts += 1 } else { gap = seq - previous - 1 }
                }
                missing += gap
                last[key] = seq
            }
            XCTAssertEqual(tracker.observe(src: src, topic: topic, tseq: seq), gap)
        }
        XCTAssertEqual(tracker.missing, missing)
        XCTAssertEqual(tracker.restarts, restarts)
        XCTAssertGreaterThan(missing, 0)
        XCTAssertGreaterThan(restarts, 0)
    }

    func testTopicCountersMatchADictionaryAcrossAFleetOfTopics() {
        var counters = TopicCounters()
        var reference: [String: Int] = [:]
        var random = SplitMix(state: 11)
        // Enough topics to make the table grow many times over.
        for step in 0..<60_000 {
            let topic = "location.fused.device-\(random.next(12_000))"
            let fingerprint = TopicCounters.fingerprint(topic)
            let asReceived = Array(topic.utf8).withUnsafeBytes { TopicCounters.fingerprint($0) }
            XCTAssertEqual(fingerprint, asReceived, "a topic's String and its bytes are one topic")
            if step % 2 == 0 {
                XCTAssertEqual(counters.update(step, for: fingerprint), reference[topic], topic)
                reference[topic] = step
            } else {
                let next = (reference[topic] ?? 0) + 1
                XCTAssertEqual(counters.increment(fingerprint), next, topic)
                reference[topic] = next
            }
        }
        XCTAssertEqual(counters.count, reference.count)
        XCTAssertGreaterThan(reference.count, 10_000)
    }

    func testShardOnTopicBytesAgreesWithTheStringRule() {
        let topics = ["location.fused.truck-7", "location.raw.d1", "motion.x", "control.", "visit.v", "region.cmd",
                      "location.fused.", "location.fusedx", "auth.status.a", "", "location.fused.caf\u{E9}",
                      "location.fused\u{301}.x", "location.fused.\u{301}x", "location.significant.\u{1F69A}",
                      "location.approx.a b"] + (0..<300).map { "location.fused.d\($0)" }
        for count in 1...4 {
            for index in 0..<count {
                let shard = Shard(index: index, count: count)
                for topic in topics {
                    let bytes = Array(topic.utf8)
                    let fromBytes = bytes.withUnsafeBytes { shard.accepts(topicBytes: $0) }
                    XCTAssertEqual(fromBytes, shard.accepts(topic: topic), "\(shard) \(topic)")
                }
            }
        }
        // Invalid UTF-8 is judged as the String it becomes.
        let broken: [UInt8] = Array("location.fused.".utf8) + [0xFF, 0x41]
        let shard = Shard(index: 1, count: 3)
        XCTAssertEqual(broken.withUnsafeBytes { shard.accepts(topicBytes: $0) },
                       shard.accepts(topic: String(decoding: broken, as: UTF8.self)))
    }
}

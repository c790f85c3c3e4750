import LocusService
import XCTest

final class SequenceAndDuplicateTests: XCTestCase {
    func testGapsAreCountedPerPublisherAndTopicAndRestartsAreNotLosses() {
        var tracker = SequenceTracker()
        XCTAssertEqual(tracker.observe(src: "a", topic: "x", tseq: 1), 0)
        XCTAssertEqual(tracker.observe(src: "a", topic: "y", tseq: 1), 0, "another topic has its own counter")
        XCTAssertEqual(tracker.observe(src: "a", topic: "x", tseq: 2), 0)
        XCTAssertEqual(tracker.observe(src: "b", topic: "x", tseq: 7), 0)
        XCTAssertEqual(tracker.observe(src: "a", topic: "x", tseq: 5), 2)
        XCTAssertEqual(tracker.observe(src: "b", topic: "x", tseq: 8), 0)
        XCTAssertEqual(tracker.observe(src: "a", topic: "y", tseq: 2), 0)
        XCTAssertEqual(tracker.observe(src: "a", topic: "x", tseq: 1), 0, "a restarted publisher begins again")
        XCTAssertEqual(tracker.observe(src: "a", topic: "x", tseq: nil), 0, "no counter: loss unknown, not counted")
        XCTAssertEqual(tracker.missing, 2)
        XCTAssertEqual(tracker.restarts, 1)
    }

    /// A publisher on many topics, and subscribers each on a subset: none sees a loss, though
    /// each misses most of the publisher's messages (the old per-publisher `seq` counted them).
    func testSubscribersOfSubsetsSeeNoGapsWhenNothingIsLost() {
        var stamped: [(topic: String, tseq: Int)] = []
        var counters: [String: Int] = [:]
        var random = SplitMix(state: 11)
        for _ in 0..<5_000 {
            let topic = ["location.fused.", "location.approx.", "health.", "visit."][random.next(4)] + "d\(random.next(50))"
            counters[topic, default: 0] += 1
            stamped.append((topic, counters[topic]!))
        }
        for prefix in ["location.fused.", "location.", "health.", "visit.d1", "location.fused.d7"] {
            var tracker = SequenceTracker()
            var perPublisher = SequenceTrackerByPublisher()
            for (index, message) in stamped.enumerated() where message.topic.hasPrefix(prefix) {
                tracker.observe(src: "fusion/a", topic: message.topic, tseq: message.tseq)
                perPublisher.observe(seq: index + 1)
            }
            XCTAssertEqual(tracker.missing, 0, prefix)
            XCTAssertGreaterThan(perPublisher.missing, 0, "\(prefix): the per-publisher count would have cried loss")
        }
        // Drop exactly 37 of one subscription's messages: exactly 37 are reported. (A topic's first
        // message sets its baseline and its last shows only with a next one: neither is dropped.)
        var tracker = SequenceTracker()
        var dropped = 0
        for (index, message) in stamped.enumerated() where message.topic.hasPrefix("location.") {
            if index % 7 == 3 && dropped < 37 && message.tseq > 1 && message.tseq < counters[message.topic]! {
                dropped += 1
                continue
            }
            tracker.observe(src: "fusion/a", topic: message.topic, tseq: message.tseq)
        }
        XCTAssertEqual(dropped, 37)
        XCTAssertEqual(tracker.missing, 37)
    }

    /// The rule `seq` alone allows: gaps in one publisher's counter across all its topics.
    private struct SequenceTrackerByPublisher {
        var last: Int?
        var missing = 0
        mutating func observe(seq: Int) {
            if let last, seq > last + 1 { missing += seq - last - 1 }
            last = seq
        }
    }

    func testRecentIDsDropRepeatsAndForgetTheOldest() {
        var recent = RecentIDs(capacity: 3)
        XCTAssertTrue(recent.insert("1"))
        XCTAssertFalse(recent.insert("1"))
        XCTAssertTrue(recent.insert("2"))
        XCTAssertTrue(recent.insert("3"))
        XCTAssertTrue(recent.insert("4"))  // evicts "1"
        XCTAssertTrue(recent.insert("1"))
        XCTAssertFalse(recent.insert("4"))
    }
}

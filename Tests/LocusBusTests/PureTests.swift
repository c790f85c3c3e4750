import LocusBroker
import LocusBus
import LocusService
import XCTest

final class LastValueCacheTests: XCTestCase {
    func testKeepsOnlyStateTopicsAndTheNewestBody() {
        var cache = LastValueCache()
        cache.store(topic: Array("location.fused.a".utf8), body: Array("{1}".utf8))
        cache.store(topic: Array("location.fused.a".utf8), body: Array("{2}".utf8))
        cache.store(topic: Array("region.event.alice".utf8), body: Array("{e}".utf8))
        cache.store(topic: Array("health.bus".utf8), body: Array("{h}".utf8))
        XCTAssertEqual(cache.count, 2)
        let matches = cache.matching(prefix: Array("location.".utf8))
        XCTAssertEqual(matches.count, 1)
        XCTAssertEqual(matches.first?.body, Array("{2}".utf8))
        XCTAssertEqual(cache.matching(prefix: []).count, 2, "an empty prefix matches every cached topic")
        XCTAssertTrue(cache.matching(prefix: Array("region.".utf8)).isEmpty)
    }

    func testCapacityRefusesNewTopicsButUpdatesKnownOnes() {
        var cache = LastValueCache(capacity: 2)
        for name in ["a", "b", "c"] { cache.store(topic: Array("location.raw.\(name)".utf8), body: Array("{}".utf8)) }
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(cache.refused, 1)
        cache.store(topic: Array("location.raw.a".utf8), body: Array("{new}".utf8))
        XCTAssertEqual(cache.refused, 1)
        XCTAssertEqual(cache.matching(prefix: Array("location.raw.a".utf8)).first?.body, Array("{new}".utf8))
    }
}

extension LastValueCacheTests {
    /// A fleet's topics differ in a few bytes, some are prefixes of others, some are longer
    /// than a key holds inline and share their first 32 bytes: each keeps its own newest body.
    func testManyTopicsEachKeepTheirNewestBody() {
        var cache = LastValueCache()
        let long = "location.fused.a-device-name-longer-than-32-bytes-"
        let names = (0..<5_000).map { "location.fused.d\($0)" } + (0..<100).map { long + String($0) } + [String(long.prefix(32))]
        for round in 0..<3 {
            for name in names { cache.store(topic: Array(name.utf8), body: Array("{\(name)/\(round)}".utf8)) }
        }
        XCTAssertEqual(cache.count, names.count)
        for name in ["location.fused.d1", "location.fused.d12", "location.fused.d123", "location.fused.d4999", long + "7", long + "77",
                     String(long.prefix(32))] {
            let exact = cache.matching(prefix: Array(name.utf8)).first { $0.topic == Array(name.utf8) }
            XCTAssertEqual(exact?.body, Array("{\(name)/2}".utf8))
        }
    }
}

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

final class CommandLineSpecTests: XCTestCase {
    let spec = CommandLineSpec(program: "locus-test", summary: "test", usage: "locus-test [options]",
                               options: ServiceProgram.commonOptions + [
                                   OptionSpec("--sink", value: "SINK", help: "a sink", repeatable: true),
                                   OptionSpec("--radius", value: "M", help: "radius", default: "100"),
                               ])

    func testFlagsOverrideEnvironmentWhichOverridesConfigWhichOverridesDefaults() throws {
        let config: [String: Any] = ["pub": "ipc:///from-config", "sub": "ipc:///sub-config", "radius": 250, "stdio": true]
        let environment = ["LOCUS_PUB": "ipc:///from-env"]
        let parsed = try spec.parse(["--pub", "tcp://host:1"], environment: environment, config: config)
        XCTAssertEqual(parsed.string("--pub"), "tcp://host:1")
        XCTAssertEqual(parsed.string("--sub"), "ipc:///sub-config")
        XCTAssertEqual(try parsed.double("--radius"), 250)
        XCTAssertTrue(parsed.flag("--stdio"))
        let envOnly = try spec.parse([], environment: environment, config: config)
        XCTAssertEqual(envOnly.string("--pub"), "ipc:///from-env")
        XCTAssertEqual(try spec.parse([], environment: [:]).string("--radius"), "100")
    }

    func testBadArgumentsAreUsageErrorsWithAClearMessage() {
        XCTAssertThrowsError(try spec.parse(["--nope"], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("unknown option '--nope'"))
        }
        XCTAssertThrowsError(try spec.parse(["--pub"], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("--pub needs a value"))
        }
        XCTAssertThrowsError(try spec.parse(["--stdio=yes"], environment: [:]))
        XCTAssertThrowsError(try spec.parse(["-x"], environment: [:]))
        XCTAssertThrowsError(try spec.parse(["--radius", "wide"], environment: [:]).double("--radius"))
    }

    func testRepeatableAndInlineValuesAndPositionals() throws {
        let parsed = try spec.parse(["--sink", "stdout", "--sink=jsonl:/tmp/x", "nmea", "--", "--literal"], environment: [:])
        XCTAssertEqual(parsed.strings("--sink"), ["stdout", "jsonl:/tmp/x"])
        XCTAssertEqual(parsed.positionals, ["nmea", "--literal"])
    }

    func testHelpListsEveryOption() {
        for option in spec.options { XCTAssertTrue(spec.helpText.contains(option.name), option.name) }
        XCTAssertTrue(spec.helpText.contains("[env LOCUS_PUB]"))
    }

    func testConfigFileErrorsAreClear() throws {
        let path = NSTemporaryDirectory() + "locus-config-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CommandLineSpec.loadConfig(path: path)) { error in
            XCTAssertTrue("\(error)".contains("not valid JSON"))
        }
        try Data("[1,2]".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CommandLineSpec.loadConfig(path: path)) { error in
            XCTAssertTrue("\(error)".contains("JSON object"))
        }
        XCTAssertThrowsError(try CommandLineSpec.loadConfig(path: path + ".missing"))
    }

    func testUnknownConfigKeysAreRefusedNotIgnored() {
        XCTAssertThrowsError(try spec.parse([], environment: [:], config: ["raduis": 200])) { error in
            XCTAssertTrue("\(error)".contains("config key 'raduis' is not an option"))
        }
    }
}

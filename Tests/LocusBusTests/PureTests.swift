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
    func testGapsAreCountedPerPublisherAndRestartsAreNotLosses() {
        var tracker = SequenceTracker()
        XCTAssertEqual(tracker.observe(src: "a", seq: 1), 0)
        XCTAssertEqual(tracker.observe(src: "a", seq: 2), 0)
        XCTAssertEqual(tracker.observe(src: "b", seq: 7), 0)
        XCTAssertEqual(tracker.observe(src: "a", seq: 5), 2)
        XCTAssertEqual(tracker.observe(src: "b", seq: 8), 0)
        XCTAssertEqual(tracker.observe(src: "a", seq: 1), 0, "a restarted publisher begins again")
        XCTAssertEqual(tracker.observe(src: "a", seq: nil), 0)
        XCTAssertEqual(tracker.missing, 2)
        XCTAssertEqual(tracker.restarts, 1)
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

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

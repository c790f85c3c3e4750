import LocusBroker
import XCTest

/// Updates overwrite a topic's body in place: what a replay already took stays as it was,
/// and bodies of any length replace each other exactly.
final class LastValueCacheUpdateTests: XCTestCase {
    func testUpdateInPlaceKeepsEarlierReadsIntact() {
        var cache = LastValueCache()
        let topic = Array("location.fused.truck-7".utf8)
        cache.store(topic: topic, body: Array("{\"n\":1}".utf8))
        let taken = cache.matching(prefix: topic)
        cache.store(topic: topic, body: Array("{\"n\":2,\"longer\":true}".utf8))
        XCTAssertEqual(taken.first?.body, Array("{\"n\":1}".utf8), "a body handed out must not change under its reader")
        XCTAssertEqual(cache.matching(prefix: topic).first?.body, Array("{\"n\":2,\"longer\":true}".utf8))
        cache.store(topic: topic, body: Array("{}".utf8))
        XCTAssertEqual(cache.matching(prefix: topic).first?.body, Array("{}".utf8))
        XCTAssertEqual(cache.count, 1)
    }
}

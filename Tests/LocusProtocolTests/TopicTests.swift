import LocusProtocol
import XCTest

/// Topic builders match docs/protocol.md's table; the parser gets the id back and refuses others.
final class TopicTests: XCTestCase {
    func testBuildersFollowTheProtocolTable() {
        XCTAssertEqual(Topic.locationRaw("truck-7"), "location.raw.truck-7")
        XCTAssertEqual(Topic.locationFused("truck-7"), "location.fused.truck-7")
        XCTAssertEqual(Topic.locationApprox("truck-7"), "location.approx.truck-7")
        XCTAssertEqual(Topic.locationSignificant("truck-7"), "location.significant.truck-7")
        XCTAssertEqual(Topic.visit("d"), "visit.d")
        XCTAssertEqual(Topic.motion("d"), "motion.d")
        XCTAssertEqual(Topic.control("d"), "control.d")
        XCTAssertEqual(Topic.regionState("alice"), "region.state.alice")
        XCTAssertEqual(Topic.regionEvent("alice"), "region.event.alice")
        XCTAssertEqual(Topic.authStatus("app"), "auth.status.app")
        XCTAssertEqual(Topic.notify("stdout"), "notify.stdout")
        XCTAssertEqual(Topic.health("bus"), "health.bus")
        XCTAssertEqual(Topic.error("fusion"), "error.fusion")
        XCTAssertEqual(Topic.regionCmd, "region.cmd")
        XCTAssertEqual(Topic.authCmd, "auth.cmd")
    }

    func testSuffixParsing() {
        XCTAssertEqual(Topic.suffix(of: "location.raw.x", after: "location.raw."), "x")
        XCTAssertEqual(Topic.suffix(of: Topic.regionEvent("a.b-c_d"), after: Topic.regionEventPrefix), "a.b-c_d")
        XCTAssertEqual(Topic.suffix(of: "location.raw.Zürich", after: Topic.locationRawPrefix), "Zürich")
        XCTAssertNil(Topic.suffix(of: "location.raw.", after: "location.raw."), "empty id")
        XCTAssertNil(Topic.suffix(of: "location.fused.x", after: "location.raw."), "other prefix")
        XCTAssertNil(Topic.suffix(of: "location.raw", after: "location.raw."), "shorter than the prefix")
        XCTAssertNil(Topic.suffix(of: "location.raw.a b", after: "location.raw."), "space in id")
    }

    func testIDRules() {
        XCTAssertTrue(Topic.isValidID("truck-7"))
        XCTAssertTrue(Topic.isValidID("provider/gps0"))
        XCTAssertTrue(Topic.isValidID(String(repeating: "a", count: 200)))
        XCTAssertFalse(Topic.isValidID(String(repeating: "a", count: 201)))
        XCTAssertFalse(Topic.isValidID(String(repeating: "é", count: 101)), "limit is in bytes")
        XCTAssertFalse(Topic.isValidID(""))
        for bad in ["a b", "a\tb", "a\nb", "a\u{0}b", "a\u{7F}b", "a\u{85}b", "a\u{A0}b", "a\u{2003}b", "a\u{3000}b"] {
            XCTAssertFalse(Topic.isValidID(bad), bad.debugDescription)
        }
    }

    func testMessageIDsAreUniqueWithinAndAcrossGenerators() {
        var first = MessageIDGenerator()
        var second = MessageIDGenerator()
        var seen = Set<String>()
        for _ in 0..<10_000 {
            seen.insert(first.next())
            seen.insert(second.next())
        }
        XCTAssertEqual(seen.count, 20_000)
        let sample = first.next()
        XCTAssertTrue(Topic.isValidID(sample), sample)
        XCTAssertTrue(sample.hasSuffix("-10001"), sample)
    }
}

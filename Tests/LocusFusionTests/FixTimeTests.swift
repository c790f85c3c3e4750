import LocusService
import LocusFusion
import LocusGeo
import LocusProtocol
import XCTest

/// Fix time against arrival: clocks that cannot be believed are re-timed, invented fixes never
/// win over real ones, and late real fixes are history rather than errors.
final class FixTimeTests: XCTestCase {
    private func codes(_ h: FusionHarness) -> [String] { h.errors().map(\.code) }

    private func point(_ k: Int) -> Coordinate { offset(testBase, east: 10 * Double(k), north: 0) }

    func testARolloverDateIsAClockFaultRetimedByArrivalAndReportedOncePerMinute() {
        var h = FusionHarness()
        let now = testEpoch
        for k in 0..<90 {
            let p = point(k)
            h.fix("old", lat: p.lat, lon: p.lon, t: now + Double(k) - ClockFault.rolloverSeconds, arrival: now + Double(k))
        }
        let fused = h.published(on: "location.fused.old")
        XCTAssertEqual(fused.count, 90, "not dropped")
        XCTAssertTrue(zip(fused, 0...).allSatisfy { abs($0.0.t - (now + Double($0.1))) < 1e-6 }, "re-timed by arrival")
        XCTAssertTrue(fused.allSatisfy { $0.location.timeSource == "arrival" })
        XCTAssertEqual(codes(h), ["clockFault", "clockFault"], "one report a minute")
        XCTAssertTrue(h.errors()[0].message.contains("1024 weeks"), h.errors()[0].message)
        XCTAssertEqual(h.logic.healthCounters["clockFaults"], 90)
    }

    func testAFixFarAheadIsRetimedNotRejectedButAFewSecondsEarlyIsTrusted() {
        var h = FusionHarness()
        h.fix("fast", lat: testBase.lat, lon: testBase.lon, t: testEpoch + 600, arrival: testEpoch)
        XCTAssertEqual(codes(h), ["clockFault"])
        XCTAssertEqual(h.published(on: "location.fused.fast").last?.t, testEpoch)
        let p = point(1)
        h.fix("early", lat: p.lat, lon: p.lon, t: testEpoch + 5, arrival: testEpoch)
        XCTAssertEqual(h.published(on: "location.fused.early").last?.t, testEpoch + 5)
        XCTAssertNil(h.published(on: "location.fused.early").last?.location.timeSource)
        XCTAssertEqual(codes(h), ["clockFault"])
    }

    /// The failure this guards against: real fixes 30 s late, dead-reckoned fixes stamped on the
    /// wall clock in between. Every real fix must still be fused and published.
    func testInventedFixesStampedAheadNeverDisplaceRealOnes() {
        var h = FusionHarness()
        var published = 0
        for k in 0..<60 {
            let t = testEpoch + Double(k)
            let p = point(k)
            let out = h.fix("car", lat: p.lat, lon: p.lon, t: t, arrival: t + 30)
            published += out.contains { $0.topic == "location.fused.car" && $0.t == t } ? 1 : 0
            let ahead = point(k + 30)
            h.fix("car", lat: ahead.lat, lon: ahead.lon, hacc: 40, t: t + 30, source: "dr", arrival: t + 30.5)
        }
        XCTAssertEqual(codes(h), [])
        XCTAssertEqual(published, 60, "every real fix fused and published at its own time")
        XCTAssertEqual(h.logic.healthCounters["inventedReplaced"], 59)
        // A cached fix for a time a real fix covers is dropped silently.
        h.fix("car", lat: testBase.lat, lon: testBase.lon, t: testEpoch + 100, source: "cache", age: 50, arrival: testEpoch + 100)
        XCTAssertEqual(h.logic.healthCounters["inventedBehindReal"], 1)
        XCTAssertEqual(codes(h), [])
    }

    func testABurstOfBufferedFixesIsHistoryAndCompletesAVisit() {
        var h = FusionHarness()
        let now = testEpoch + 1_000
        let cafe = offset(testBase, east: 2_000, north: 0)
        // Back online: the current fix first, then the 300 buffered ones, oldest first, all at once.
        h.fix("phone", lat: cafe.lat, lon: cafe.lon, hacc: 8, t: now, arrival: now)
        let before = h.published(on: "location.fused.phone").count
        for k in stride(from: 300, through: 1, by: -1) {
            let p = offset(cafe, east: Double(k % 7), north: Double(k % 5))
            h.fix("phone", lat: p.lat, lon: p.lon, hacc: 8, t: now - Double(k), arrival: now + 0.5)
        }
        XCTAssertEqual(codes(h), [])
        let late = h.published(on: "location.late.phone")
        XCTAssertEqual(late.map(\.t), (1...300).reversed().map { now - Double($0) }, "each buffered fix is history, once")
        XCTAssertEqual(h.logic.healthCounters["lateFixes"], 300)
        // The last ten seconds are also offered to the estimate; none may move it back.
        let offered = (h.logic.healthCounters["fix.fusedLate"] ?? 0) + (h.logic.healthCounters["fix.rejectedOutlier"] ?? 0)
        XCTAssertEqual(offered, 10)
        XCTAssertNil(h.logic.healthCounters["fix.reanchored"])
        XCTAssertEqual(h.published(on: "location.fused.phone").count, before, "the estimate does not rewind")
        let visits = h.output.compactMap { out -> Visit? in if case .visit(let v) = out.body { return v } else { return nil } }
        XCTAssertEqual(visits.count, 1, "five minutes at one place, known only from the buffered fixes")
        XCTAssertEqual(visits.first?.arrival, now - 300)
    }
}

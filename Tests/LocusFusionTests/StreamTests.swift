import LocusService
import LocusFusion
import LocusGeo
import LocusProtocol
import XCTest

/// The fused stream's policy and the derived streams: significant change, visits, tiers.
final class StreamTests: XCTestCase {
    func testFusedMessageCarriesTierModeAndSource() {
        var h = FusionHarness()
        h.fix("a", lat: 37.4, lon: -122.1, hacc: 4, t: testEpoch)
        h.fix("b", lat: 37.4, lon: -122.1, hacc: 40, t: testEpoch, source: "wifi")
        let a = h.locations(on: "location.fused.a").first
        XCTAssertEqual(a?.source, "fused")
        XCTAssertEqual(a?.mode, "3d")
        XCTAssertEqual(a?.tier, "high")
        // Wi-Fi's 40 m claim is not believed as is: scaled up past the medium tier.
        XCTAssertEqual(h.locations(on: "location.fused.b").first?.tier, "low")
        XCTAssertEqual(AccuracyTier(haccMeters: 10), .high)
        XCTAssertEqual(AccuracyTier(haccMeters: 50), .medium)
        XCTAssertEqual(AccuracyTier(haccMeters: 100), .low)
        XCTAssertEqual(AccuracyTier(haccMeters: 100.1), .insufficient)
    }

    func testDistanceFilterCountsFromLastPublished() {
        var h = FusionHarness()
        h.send(.control(Control(device: "a", distanceFilter: 50)), topic: "control.a", t: testEpoch)
        // Creep 10 m per second: published at start, then only once 50 m from the last published fix.
        for step in 0..<30 {
            let here = offset(testBase, east: Double(step) * 10, north: 0)
            h.fix("a", lat: here.lat, lon: here.lon, hacc: 3, t: testEpoch + Double(step))
        }
        let published = h.locations(on: "location.fused.a")
        XCTAssertGreaterThanOrEqual(published.count, 4)
        XCTAssertLessThanOrEqual(published.count, 7)
        for (previous, next) in zip(published, published.dropFirst()) {
            XCTAssertGreaterThanOrEqual(FastDistance.meters(Coordinate(lat: previous.lat, lon: previous.lon),
                                                            Coordinate(lat: next.lat, lon: next.lon)), 50)
        }
    }

    func testDesiredAccuracyHoldsWorseFixesAndPauseStopsOutput() {
        var h = FusionHarness()
        h.send(.control(Control(device: "a", desiredAccuracy: 10)), topic: "control.a", t: testEpoch)
        h.fix("a", lat: 37.4, lon: -122.1, hacc: 4, t: testEpoch)
        // A cell fix far worse than wanted: held back.
        XCTAssertFalse(h.fix("a", lat: 37.4001, lon: -122.1, hacc: 900, t: testEpoch + 1, source: "cell").contains { $0.topic == "location.fused.a" })
        h.send(.control(Control(device: "a", paused: true)), topic: "control.a", t: testEpoch + 2)
        XCTAssertFalse(h.fix("a", lat: 37.4, lon: -122.1, hacc: 3, t: testEpoch + 3).contains { $0.topic == "location.fused.a" })
        h.send(.control(Control(device: "a", paused: false)), topic: "control.a", t: testEpoch + 4)
        XCTAssertTrue(h.fix("a", lat: 37.4, lon: -122.1, hacc: 3, t: testEpoch + 5).contains { $0.topic == "location.fused.a" })
    }

    func testSignificantChangeNeeds500MetresAndFiveMinutes() {
        var significant = SignificantChange()
        XCTAssertTrue(significant.observe(testBase, t: 0))
        XCTAssertFalse(significant.observe(offset(testBase, east: 600, north: 0), t: 100), "too soon")
        XCTAssertFalse(significant.observe(offset(testBase, east: 400, north: 0), t: 400), "too close")
        XCTAssertTrue(significant.observe(offset(testBase, east: 600, north: 0), t: 400))
        XCTAssertFalse(significant.observe(offset(testBase, east: 1_000, north: 0), t: 800), "measured from the last significant one")
    }

    func testSignificantStreamOnADrive() {
        var h = FusionHarness()
        // 15 m/s east for 20 minutes, a fix per second.
        for step in 0..<1_200 {
            let here = offset(testBase, east: Double(step) * 15, north: 0)
            h.fix("car", lat: here.lat, lon: here.lon, hacc: 5, t: testEpoch + Double(step))
        }
        let significant = h.output.filter { $0.topic == "location.significant.car" }
        XCTAssertEqual(significant.map(\.t), [0, 300, 600, 900].map { testEpoch + Double($0) })
    }

    func testVisitArrivalAndDeparture() {
        var h = FusionHarness()
        var random = SeededGenerator(seed: 3)
        // Ten minutes within 20 m of a café, then drive away.
        for step in 0..<600 {
            let here = offset(testBase, east: Double.random(in: -20...20, using: &random), north: Double.random(in: -20...20, using: &random))
            h.fix("phone", lat: here.lat, lon: here.lon, hacc: 8, t: testEpoch + Double(step))
        }
        for step in 0..<60 {
            let here = offset(testBase, east: 200 + Double(step) * 10, north: 0)
            h.fix("phone", lat: here.lat, lon: here.lon, hacc: 8, t: testEpoch + 600 + Double(step))
        }
        let visits = h.output.compactMap { out -> Visit? in
            guard out.topic == "visit.phone", case .visit(let visit) = out.body else { return nil }
            return visit
        }
        XCTAssertEqual(visits.count, 2)
        XCTAssertEqual(visits.first?.arrival, testEpoch)
        XCTAssertNil(visits.first?.departure)
        XCTAssertEqual(visits.first.map { $0.arrival + 300 }, h.output.first { $0.topic == "visit.phone" }?.t)
        XCTAssertEqual(visits.last?.arrival, testEpoch)
        let departure = try? XCTUnwrap(visits.last?.departure)
        XCTAssertNotNil(departure)
        XCTAssertGreaterThan(departure ?? 0, testEpoch + 600)
        XCTAssertLessThan(departure ?? .infinity, testEpoch + 620)
        let center = Coordinate(lat: visits[0].lat, lon: visits[0].lon)
        XCTAssertLessThan(FastDistance.meters(center, testBase), 15)
    }

    func testVisitStayIsConfigurable() {
        var visits = VisitDetector(radiusMeters: 100, minimumStaySeconds: 60)
        XCTAssertNil(visits.observe(testBase, haccMeters: 5, t: 0))
        XCTAssertNil(visits.observe(testBase, haccMeters: 5, t: 59))
        XCTAssertEqual(visits.observe(testBase, haccMeters: 5, t: 60)?.arrival, 0)
        // Imprecise fixes neither confirm nor break a stay.
        XCTAssertNil(visits.observe(offset(testBase, east: 500, north: 0), haccMeters: 300, t: 70))
        XCTAssertEqual(visits.observe(offset(testBase, east: 500, north: 0), haccMeters: 5, t: 80)?.departure, 80)
    }

    func testStationaryMotionSmoothsMoreThanAutomotive() {
        func spread(activity: MotionActivity) -> Double {
            var h = FusionHarness()
            h.send(.motion(Motion(device: "a", activity: activity, confidence: .high)), topic: "motion.a", t: testEpoch)
            var random = SeededGenerator(seed: 5)
            for step in 0..<120 {
                let here = offset(testBase, east: 4 * Double.random(in: -1...1, using: &random), north: 4 * Double.random(in: -1...1, using: &random))
                h.fix("a", lat: here.lat, lon: here.lon, hacc: 5, t: testEpoch + Double(step))
            }
            let tail = h.locations(on: "location.fused.a").suffix(60)
            return tail.map { FastDistance.meters(Coordinate(lat: $0.lat, lon: $0.lon), testBase) }.reduce(0, +) / Double(tail.count)
        }
        XCTAssertLessThan(spread(activity: .stationary), spread(activity: .automotive) * 0.6)
    }

    func testNetworkAndGPSFixesFuseAndOutOfOrderIsAbsorbed() {
        var h = FusionHarness()
        for step in 0..<30 {
            let t = testEpoch + Double(step)
            let here = offset(testBase, east: Double(step) * 2, north: 0)
            h.fix("a", lat: here.lat, lon: here.lon, hacc: 5, t: t, source: "gps")
            // A Wi-Fi fix, 30 m off, arriving late: fused but weighted low.
            let wifi = offset(here, east: 0, north: 30)
            h.fix("a", lat: wifi.lat, lon: wifi.lon, hacc: 20, t: t - 0.5, source: "wifi")
        }
        let last = h.locations(on: "location.fused.a").last!
        XCTAssertLessThan(FastDistance.meters(Coordinate(lat: last.lat, lon: last.lon), offset(testBase, east: 58, north: 0)), 10)
        XCTAssertGreaterThan(h.logic.healthCounters["fix.fusedLate"] ?? 0, 20)
        XCTAssertTrue(h.errors().isEmpty)
    }
}

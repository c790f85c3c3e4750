import LocusGeo
import LocusMotion
import LocusProtocol
import XCTest

/// A car at 15 m/s on a gently curving road loses GPS for 60 s in a tunnel.
final class TunnelScenarioTests: XCTestCase {
    private let start = Coordinate(lat: 48.137, lon: 11.575)
    private let t0 = 1_700_000_000.0

    /// Truth: speed 15 m/s ± 0.5 (slow wave), course turning at 0.3°/s from 40°.
    private func truth(at seconds: Double) -> (coordinate: Coordinate, speed: Double, course: Double) {
        var coordinate = start
        var s = 0.0
        while s < seconds {
            let step = min(0.1, seconds - s)
            let speed = 15 + 0.5 * sin(s / 20)
            coordinate = Geodesic.destination(from: coordinate, azimuthDegrees: 40 + 0.3 * s, distanceMeters: speed * step)
            s += step
        }
        return (coordinate, 15 + 0.5 * sin(seconds / 20), (40 + 0.3 * seconds).truncatingRemainder(dividingBy: 360))
    }

    func testCarInTunnelIsDeadReckonedHonestly() {
        var scenario = MotionScenario()
        var noise = Gaussian(seed: 7)
        let hacc = 4.0
        scenario.activity("car", .automotive, t: t0)
        var truths: [Double: Coordinate] = [:]
        // 60 s of good fused fixes, 60 s tunnel (activity reports only), 10 s of fixes again.
        for second in 0...130 {
            let t = t0 + Double(second)
            let state = truth(at: Double(second))
            truths[t] = state.coordinate
            let inTunnel = second > 60 && second <= 120
            if inTunnel {
                scenario.activity("car", .automotive, t: t)
                continue
            }
            let sigma = hacc / 1.5096
            let plane = LocalTangentPlane(origin: state.coordinate)
            let measured = plane.unproject(east: sigma * noise.next(), north: sigma * noise.next())
            scenario.fused("car", measured, hacc: hacc, t: t, speed: state.speed + 0.3 * noise.next(), speedAcc: 0.3,
                           course: state.course + 1.5 * noise.next())
        }
        let dr = scenario.fixes(source: "dr")
        XCTAssertGreaterThanOrEqual(dr.count, 30)
        XCTAssertTrue(dr.allSatisfy { $0.t > t0 + 60 && $0.t <= t0 + 120 }, "dead reckoning only inside the outage, stops when fixes return")
        let covered = dr.filter { fix in
            guard let truth = truths[fix.t] else { return false }
            return Geodesic.distance(truth, Coordinate(lat: fix.location.lat, lon: fix.location.lon)) <= fix.location.hacc
        }
        let coverage = Double(covered.count) / Double(dr.count)
        print("tunnel: \(dr.count) dr fixes, coverage \(String(format: "%.1f", coverage * 100)) %, final radius \(Int(dr.last?.location.hacc ?? 0)) m")
        XCTAssertGreaterThanOrEqual(coverage, 0.68)
        for (a, b) in zip(dr, dr.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b.location.hacc, a.location.hacc)
            XCTAssertEqual(b.t - a.t, 1, accuracy: 1e-9, "1 Hz")
        }
        XCTAssertTrue(dr.allSatisfy { $0.location.mode == "dr" && $0.location.speed != nil && $0.location.course != nil })
        // While degraded the desired accuracy is relaxed, and restored when fixes return.
        let accuracies = scenario.controls.compactMap(\.desiredAccuracy)
        XCTAssertEqual(accuracies, [5, 2000, 5])
    }

    func testOwnFixesComingBackThroughFusionDoNotEndTheOutage() {
        var scenario = MotionScenario()
        scenario.activity("car", .automotive, t: t0)
        // Five good fixes at 1 Hz establish the cadence dead reckoning needs.
        for second in 0..<5 {
            scenario.fused("car", Geodesic.destination(from: start, azimuthDegrees: 90, distanceMeters: 15 * Double(second)), hacc: 4,
                           t: t0 + Double(second), speed: 15, speedAcc: 0.3, course: 90)
        }
        scenario.activity("car", .automotive, t: t0 + 14)
        let before = scenario.fixes(source: "dr").count
        XCTAssertGreaterThan(before, 0)
        // Fusion republishes dead-reckoned fixes as fused with mode dr, and cache with mode cache.
        for (second, mode) in [(15.0, "dr"), (16.0, "cache")] {
            let fix = scenario.fixes(source: "dr").last!.location
            scenario.fused("car", Coordinate(lat: fix.lat, lon: fix.lon), hacc: 4, t: t0 + second, speed: 15, course: 90, mode: mode)
        }
        scenario.activity("car", .automotive, t: t0 + 19)
        let after = scenario.fixes(source: "dr")
        XCTAssertEqual(after.count, before + 5, "dead reckoning went on through its own fixes")
        XCTAssertEqual(scenario.logic.healthCounters["ownFixes"], 2)
    }
}

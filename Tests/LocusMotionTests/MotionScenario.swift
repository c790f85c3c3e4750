import LocusService
import LocusGeo
import LocusMotion
import LocusProtocol

/// Drives `MotionLogic` the way `--stdio` does: time is the largest message `t` seen, and
/// a tick follows every input. Collects everything published.
struct MotionScenario {
    var logic: MotionLogic
    var output: [Outbound] = []
    private var clock = 0.0
    private var counter = 0

    init(configuration: MotionConfiguration = MotionConfiguration(), ownSource: String? = "motion/main") {
        logic = MotionLogic(configuration: configuration, ownSource: ownSource)
    }

    mutating func send(_ body: Body, topic: String, t: Double, src: String = "test/input", arrival: Double? = nil) {
        counter += 1
        let message = Message(body: body, id: "m\(counter)", t: t, src: src)
        clock = max(clock, arrival ?? t)
        output += logic.receive(message, topic: topic, now: clock)
        output += logic.tick(now: clock)
    }

    /// A tick of the runtime at `now` (wall time on the bus), with no input.
    mutating func tick(at now: Double) {
        clock = max(clock, now)
        output += logic.tick(now: clock)
    }

    /// A fused fix of time `t`, arriving at `arrival` (default: its own time, as in `--stdio`).
    mutating func fused(_ device: String, _ coordinate: Coordinate, hacc: Double, t: Double, speed: Double? = nil,
                        speedAcc: Double? = nil, course: Double? = nil, mode: String? = "3d", arrival: Double? = nil) {
        let location = Location(device: device, source: "fused", lat: coordinate.lat, lon: coordinate.lon, hacc: hacc,
                                speed: speed, speedAcc: speedAcc, course: course, mode: mode)
        send(.location(location), topic: Topic.locationFused(device), t: t, arrival: arrival)
    }

    mutating func activity(_ device: String, _ activity: MotionActivity, confidence: MotionConfidence = .high, t: Double,
                           arrival: Double? = nil) {
        send(.motion(Motion(device: device, activity: activity, confidence: confidence)), topic: Topic.motion(device), t: t,
             arrival: arrival)
    }

    /// Published fixes of one source, with their times.
    func fixes(source: String) -> [(t: Double, location: Location)] {
        output.compactMap { outbound in
            guard case .location(let location) = outbound.body, location.source == source else { return nil }
            return (outbound.t, location)
        }
    }

    var controls: [Control] {
        output.compactMap { if case .control(let control) = $0.body { return control } else { return nil } }
    }

    var errors: [ErrorReport] {
        output.compactMap { if case .error(let report) = $0.body { return report } else { return nil } }
    }
}

/// Standard normal draws from a seeded generator (Box–Muller), so scenarios repeat exactly.
struct Gaussian {
    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func next() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
        let u2 = Double.random(in: 0..<1, using: &generator)
        return (-2 * _log(u1)).squareRoot() * _cos(2 * .pi * u2)
    }
}

private func _log(_ x: Double) -> Double { Foundation.log(x) }
private func _cos(_ x: Double) -> Double { Foundation.cos(x) }

import Foundation

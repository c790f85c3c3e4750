import LocusGeo
import LocusProtocol

/// A seeded simulated activity sequence for the `motion` plugin: stays of 20–180 s with
/// plausible transitions (a walk between a car ride and standing still), mostly high
/// confidence. The same seed gives the same sequence.
public struct MotionSimulation: Sendable {
    public var seed: UInt64
    public var durationSeconds: Double

    public init(seed: UInt64, durationSeconds: Double) {
        self.seed = seed
        self.durationSeconds = durationSeconds
    }

    /// Which activities may follow which: nobody gets out of a car without walking.
    static let transitions: [MotionActivity: [MotionActivity]] = [
        .stationary: [.walking, .walking, .automotive, .cycling],
        .walking: [.stationary, .running, .automotive, .cycling],
        .running: [.walking, .stationary],
        .cycling: [.walking, .stationary],
        .automotive: [.walking, .stationary],
        .unknown: [.stationary, .walking],
    ]

    /// The activity changes (offsets from the start) as a timeline.
    public func timeline() -> MotionTimeline {
        var generator = SeededGenerator(seed: seed)
        var entries: [MotionTimeline.Entry] = []
        var activity = MotionActivity.stationary
        var t = 0.0
        while t < durationSeconds {
            let roll = Double.random(in: 0..<1, using: &generator)
            let confidence: MotionConfidence = roll < 0.8 ? .high : (roll < 0.95 ? .medium : .low)
            entries.append(MotionTimeline.Entry(t: t, activity: activity, confidence: confidence))
            t += Double.random(in: 20...180, using: &generator).rounded()
            let choices = Self.transitions[activity] ?? [.stationary]
            activity = choices[Int.random(in: 0..<choices.count, using: &generator)]
        }
        return MotionTimeline(entries: entries)
    }
}

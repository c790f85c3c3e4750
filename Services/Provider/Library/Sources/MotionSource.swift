import Foundation
import LocusProtocol
import LocusService

/// The `motion` plugin: publishes `motion.<device>` from an activity timeline (a replayed
/// JSON-lines file or a seeded simulation), paced like a replay. It produces no fixes, so
/// `control` settings do not apply to it.
public struct MotionSource: PositionSource {
    public var timeline: MotionTimeline
    /// Time of offset 0, Unix seconds.
    public var startTime: Double
    /// Seconds between repeated reports of the current activity.
    public var intervalSeconds: Double
    /// Keep reporting the last activity until this offset (nil: report it once).
    public var endOffsetSeconds: Double?
    public var pacer: ReplayPacer
    public let plugin = "motion"

    public init(timeline: MotionTimeline, startTime: Double, intervalSeconds: Double = 1, endOffsetSeconds: Double? = nil,
                pacer: ReplayPacer = ReplayPacer()) {
        self.timeline = timeline
        self.startTime = startTime
        self.intervalSeconds = intervalSeconds
        self.endOffsetSeconds = endOffsetSeconds
        self.pacer = pacer
    }

    public func run(_ context: SourceContext) {
        var pacer = pacer
        var sent = 0
        for report in timeline.reports(start: startTime, intervalSeconds: intervalSeconds, endOffset: endOffsetSeconds) {
            if context.stop.isRaised { break }
            let wait = pacer.delay(forFixTime: report.t, now: Date().timeIntervalSince1970)
            if wait > 0, !context.stop.sleep(seconds: wait) { break }
            let motion = Motion(device: context.device, activity: report.activity, confidence: report.confidence)
            context.publish(Outbound(topic: Topic.motion(context.device), body: .motion(motion), t: report.t))
            sent += 1
            context.status.setCounters(["activities": sent])
        }
        context.finish()
    }
}

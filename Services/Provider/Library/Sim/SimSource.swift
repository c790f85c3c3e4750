import Foundation

/// The `sim` plugin: runs a `SimGenerator` and paces its fixes like a replay
/// (real time by default, `--rate max` as fast as possible).
public struct SimSource: PositionSource {
    public var configuration: SimConfiguration
    public var pacer: ReplayPacer
    public let plugin = "sim"

    public init(configuration: SimConfiguration, pacer: ReplayPacer = ReplayPacer()) {
        self.configuration = configuration
        self.pacer = pacer
    }

    public func run(_ context: SourceContext) {
        var generator = SimGenerator(configuration)
        var pacer = pacer
        // Anchored at the run's start, not its first fix: an outage at the start (a receiver's
        // time to first fix) is waited out in real time instead of skipped.
        _ = pacer.delay(forFixTime: configuration.startTime, now: Date().timeIntervalSince1970)
        var sent = 0
        while !context.stop.isRaised, let fix = generator.next() {
            if pacer.isPast(forFixTime: fix.t, now: Date().timeIntervalSince1970) { continue }
            let wait = pacer.delay(forFixTime: fix.t, now: Date().timeIntervalSince1970)
            if wait > 0, !context.stop.sleep(seconds: wait) { break }
            context.emit(fix.location, t: fix.t)
            sent += 1
            if sent % 100 == 0 { context.status.setCounters(["simulated": sent]) }
        }
        context.status.setCounters(["simulated": sent])
        context.finish()
    }
}

import Foundation
import LocusService

/// Turns the `motion` plugin's options into a `MotionSource`: `--timeline FILE` replays a
/// file, otherwise `--seed` and `--duration` (default 600 s) drive a simulation.
/// `--interval` repeats the current activity, `--start` anchors relative times.
enum MotionOptions {
    static func makeSource(options: ParsedOptions, pacer: ReplayPacer, now: Double) throws(UsageError) -> MotionSource {
        let interval = try ProviderOptions.positive(options, "--interval") ?? 1
        let start = try options.double("--start") ?? now.rounded(.down)
        let duration = try ProviderOptions.positive(options, "--duration")
        if let path = options.string("--timeline") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("--timeline: cannot read \(path) as UTF-8 text")
            }
            return MotionSource(timeline: try MotionTimeline.parse(text), startTime: start, intervalSeconds: interval,
                                endOffsetSeconds: duration, pacer: pacer)
        }
        guard let seed = try options.int("--seed"), seed >= 0 else { throw UsageError("--seed must be a number ≥ 0") }
        let simulated = duration ?? 600
        let timeline = MotionSimulation(seed: UInt64(seed), durationSeconds: simulated).timeline()
        return MotionSource(timeline: timeline, startTime: start, intervalSeconds: interval, endOffsetSeconds: simulated, pacer: pacer)
    }
}

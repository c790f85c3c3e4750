/// When to try a failed write again: at once the first time, then after a delay that doubles
/// up to a ceiling, so a full disk is probed a few times a second at first and then every few
/// seconds, never in a tight loop. Times are whatever clock the caller passes (wall seconds).
public struct RetrySchedule: Sendable, Equatable {
    public var initialDelaySeconds: Double
    public var maximumDelaySeconds: Double
    /// Failures since the last success.
    public private(set) var failures = 0
    /// The earliest time of the next attempt; nil when nothing is failing.
    public private(set) var nextAttempt: Double?

    public init(initialDelaySeconds: Double = 0.1, maximumDelaySeconds: Double = 5) {
        self.initialDelaySeconds = initialDelaySeconds
        self.maximumDelaySeconds = maximumDelaySeconds
    }

    /// Whether an attempt may be made at `now`.
    public func isDue(now: Double) -> Bool { nextAttempt.map { now >= $0 } ?? true }

    /// Records a failed attempt at `now` and sets the next one.
    public mutating func failed(now: Double) {
        failures += 1
        var delay = initialDelaySeconds
        for _ in 1..<min(failures, 32) { delay = min(maximumDelaySeconds, delay * 2) }
        nextAttempt = now + min(delay, maximumDelaySeconds)
    }

    /// Records a successful attempt: the next failure starts the schedule again.
    public mutating func succeeded() {
        failures = 0
        nextAttempt = nil
    }
}

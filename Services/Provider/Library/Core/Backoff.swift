/// Reconnect delays for a lost device or daemon: doubling from `initialSeconds` up to
/// `maximumSeconds`, reset after a success, so an unplugged receiver is retried quickly
/// at first and then without burning the CPU.
public struct Backoff: Sendable, Equatable {
    public var initialSeconds: Double
    public var maximumSeconds: Double
    private var current: Double

    public init(initialSeconds: Double = 0.5, maximumSeconds: Double = 10) {
        self.initialSeconds = initialSeconds
        self.maximumSeconds = maximumSeconds
        current = initialSeconds
    }

    /// The delay before the next attempt; each call doubles the following one.
    public mutating func nextDelay() -> Double {
        let delay = current
        current = min(current * 2, maximumSeconds)
        return delay
    }

    public mutating func reset() { current = initialSeconds }
}

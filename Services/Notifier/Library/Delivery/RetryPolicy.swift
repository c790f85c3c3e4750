import Foundation

/// Exponential backoff with jitter between attempts on one sink: a receiver that is down
/// is not hammered, and many notifiers restarting together do not retry in lockstep.
/// There is no attempt limit: a sink down for hours gets everything once it is back.
public struct RetryPolicy: Sendable, Equatable {
    public var initialDelaySeconds: Double = 0.5
    public var multiplier: Double = 2
    public var maximumDelaySeconds: Double = 60
    /// The share of the delay that is random: the wait is in [delay·(1−jitter), delay].
    public var jitterFraction: Double = 0.5

    public init(initialDelaySeconds: Double = 0.5, multiplier: Double = 2, maximumDelaySeconds: Double = 60, jitterFraction: Double = 0.5) {
        self.initialDelaySeconds = initialDelaySeconds
        self.multiplier = multiplier
        self.maximumDelaySeconds = maximumDelaySeconds
        self.jitterFraction = jitterFraction
    }

    /// The wait before retry number `attempt` (1 after the first failure); `unit` is a random number in [0, 1).
    public func delaySeconds(attempt: Int, unit: Double) -> Double {
        let exponent = Double(max(0, attempt - 1))
        let ceiling = min(maximumDelaySeconds, initialDelaySeconds * pow(multiplier, min(exponent, 60)))
        return ceiling * (1 - jitterFraction * unit)
    }
}

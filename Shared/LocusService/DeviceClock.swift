/// One device's clock as a service sees it: the offset between when the device's fixes arrive
/// and the time they carry (arrival − `t`), smoothed, with its spread. A tracker that buffers
/// and uploads, or whose clock runs behind, has a steady positive offset; one whose clock runs
/// ahead has a negative one. A service that waits for a device's next fix measures the wait on
/// the device's own clock (`deviceTime(at:)`), so a device that is steadily late or early is
/// never taken for lost, and whatever it invents for the device is stamped in the device's time.
///
/// The estimate has the form of the round-trip estimator TCP uses (RFC 6298: a gain of 1/8 for
/// the mean, 1/4 for the mean deviation), made robust: each deviation is first limited to four
/// spreads (at least one second), so a single buffered fix in a live stream barely moves it,
/// while a device whose lag really changed is followed within a few dozen fixes (every limited
/// step also widens the spread, and with it the limit).
public struct DeviceClock: Sendable, Equatable {
    /// Smoothed arrival − fix time, seconds; nil before the first fix.
    public private(set) var offsetSeconds: Double?
    /// Smoothed absolute deviation of the samples from the offset, seconds.
    public private(set) var spreadSeconds = 0.0
    /// Fixes observed.
    public private(set) var samples = 0

    static let gain = 0.125
    static let spreadGain = 0.25
    static let spreads = 4.0
    static let minimumLimitSeconds = 1.0

    public init() {}

    /// Takes one fix's time and when it arrived (the service's clock), both Unix seconds.
    public mutating func observe(fixTime t: Double, arrival: Double) {
        let sample = arrival - t
        guard sample.isFinite else { return }
        samples += 1
        guard let offset = offsetSeconds else {
            offsetSeconds = sample
            return
        }
        let limit = max(Self.minimumLimitSeconds, Self.spreads * spreadSeconds)
        let deviation = min(max(sample - offset, -limit), limit)
        offsetSeconds = offset + Self.gain * deviation
        spreadSeconds += Self.spreadGain * (abs(deviation) - spreadSeconds)
    }

    /// The device's own time when the service's clock reads `arrival`: the time of the newest
    /// fix it should have sent by then. Without any fix yet, the service's clock.
    public func deviceTime(at arrival: Double) -> Double {
        arrival - (offsetSeconds ?? 0)
    }

    /// Slack a wait on this clock needs for the scatter of arrivals: four spreads.
    public var toleranceSeconds: Double { Self.spreads * spreadSeconds }
}

public import LocusService
public import LocusProtocol

/// What the degrader knows about one device: its activity, its steering, its last good fix
/// and which stage of degradation it is in.
public struct DeviceTrack: Sendable, Equatable {
    /// The stages a device's positioning goes through when fixes stop.
    public enum Phase: Sendable, Equatable {
        /// Good fixes arrive; nothing is published for positions.
        case tracking
        /// Fixes stopped: dead-reckoned fixes go out at 1 Hz; `nextT` is the next one's time.
        case deadReckoning(DeadReckoner, nextT: Double)
        /// Dead reckoning gave up: the last good fix goes out with its age.
        case cache(nextT: Double)
        /// The cached location expired: nothing is published.
        case unavailable
    }

    /// The activity the strategy follows (the last one reported with enough confidence).
    public var activity: MotionActivity = .unknown
    /// Whether any activity was accepted, or low power asked for: only then is the device steered.
    public var steered = false
    /// Since when (message time) the device has been stationary without a break.
    public var stationarySince: Double?
    public var paused = false
    /// Low power asked for by a `control` message (nil: not said).
    public var lowPowerByControl: Bool?
    /// Message time at which the device was last resumed; the outage clock starts no earlier.
    public var resumedAt: Double?
    public var lastGood: GoodFix?
    /// The rhythm of good fixes: without one, silence is not an outage.
    public var cadence = Cadence()
    /// Whether the device was moving at its last good fix (by its speed or its activity).
    public var movingAtLastGood = false
    /// The device's clock: outages and degraded fixes are timed on it, not on this host's.
    public var clock = DeviceClock()
    /// Time of the newest real fused fix (good or poor), the last sample of `clock`.
    public var newestFixT = -Double.infinity
    public var phase: Phase = .tracking
    /// After an outage the desired accuracy stays relaxed until a good fix meets it, so the
    /// estimate converging back is not held back as "worse than desired".
    public var settling = false
    /// The steering last published on `control.<device>`.
    public var steering: Steering?

    public init() {}

    /// Whether fixes count as lost and a degraded position is being published.
    public var isDegraded: Bool {
        if case .tracking = phase { return false }
        return true
    }

    public var isUnavailable: Bool { phase == .unavailable }
}

public import LocusProtocol

/// How a device's providers and fusion should be steered for one activity: Core Location's
/// `desiredAccuracy` and `distanceFilter` chosen per activity, as an app picks
/// `kCLLocationAccuracyBestForNavigation` in a car and a coarser setting on foot.
public struct Strategy: Sendable, Equatable {
    /// Wanted accuracy in metres.
    public var desiredAccuracyMeters: Double
    /// Minimum movement in metres between published fixes (0 = every fix).
    public var distanceFilterMeters: Double

    public init(desiredAccuracyMeters: Double, distanceFilterMeters: Double) {
        self.desiredAccuracyMeters = desiredAccuracyMeters
        self.distanceFilterMeters = distanceFilterMeters
    }

    /// Defaults: best accuracy in a car, a 10 m filter on foot, nothing filtered when unknown.
    /// `stationary` keeps the fine setting until the pause takes over.
    public static let defaultsByActivity: [MotionActivity: Strategy] = [
        .automotive: Strategy(desiredAccuracyMeters: 5, distanceFilterMeters: 5),
        .cycling: Strategy(desiredAccuracyMeters: 10, distanceFilterMeters: 10),
        .running: Strategy(desiredAccuracyMeters: 10, distanceFilterMeters: 10),
        .walking: Strategy(desiredAccuracyMeters: 10, distanceFilterMeters: 10),
        .stationary: Strategy(desiredAccuracyMeters: 10, distanceFilterMeters: 10),
        .unknown: Strategy(desiredAccuracyMeters: 10, distanceFilterMeters: 0),
    ]
}

/// The settings a device is steered with at one moment: what `control.<device>` says.
/// Compared as a whole so a control message goes out only when something changed.
public struct Steering: Sendable, Equatable {
    public var desiredAccuracyMeters: Double
    public var distanceFilterMeters: Double
    public var paused: Bool
    public var powerMode: PowerMode

    public init(desiredAccuracyMeters: Double, distanceFilterMeters: Double, paused: Bool, powerMode: PowerMode) {
        self.desiredAccuracyMeters = desiredAccuracyMeters
        self.distanceFilterMeters = distanceFilterMeters
        self.paused = paused
        self.powerMode = powerMode
    }

    /// The steering for an activity: its strategy, coarsened in low power, relaxed while the
    /// position is degraded (so the degraded estimate is not held back as "too inaccurate").
    public static func make(activity: MotionActivity, paused: Bool, lowPower: Bool, degraded: Bool,
                            configuration: MotionConfiguration) -> Steering {
        let strategy = configuration.strategies[activity] ?? Strategy(desiredAccuracyMeters: 10, distanceFilterMeters: 0)
        var accuracy = strategy.desiredAccuracyMeters
        var filter = strategy.distanceFilterMeters
        if lowPower {
            accuracy = max(accuracy, configuration.lowPowerAccuracyMeters)
            filter = max(filter, configuration.lowPowerDistanceFilterMeters)
        }
        if degraded { accuracy = max(accuracy, configuration.degradedAccuracyMeters) }
        return Steering(desiredAccuracyMeters: accuracy, distanceFilterMeters: filter, paused: paused,
                        powerMode: lowPower ? .low : .normal)
    }

    /// The `control` body for `device`, with a reason for a person reading the stream.
    public func control(device: String, reason: String) -> Control {
        Control(device: device, desiredAccuracy: desiredAccuracyMeters, distanceFilter: distanceFilterMeters,
                paused: paused, powerMode: powerMode, reason: reason)
    }
}

public import LocusGeo
public import LocusProtocol

/// Which fused estimates a device's subscribers get, steered by `control.<device>` as Core
/// Location's `desiredAccuracy` and `distanceFilter` steer a `CLLocationManager`: a new fix
/// is published once it has moved `distanceFilter` metres from the last published one, and
/// fixes worse than `desiredAccuracy` wait until nothing better has come for a while.
public struct OutputPolicy: Sendable, Equatable {
    public var desiredAccuracyMeters: Double?
    public var distanceFilterMeters: Double?
    public var paused = false
    /// With a desired accuracy set, a worse fix still goes out when nothing was published for this long.
    public var fallbackAfterSeconds: Double
    public private(set) var lastPublished: (coordinate: Coordinate, t: Double)?

    public init(fallbackAfterSeconds: Double = 30) {
        self.fallbackAfterSeconds = fallbackAfterSeconds
    }

    /// Takes the fields a `control` message sets; nil fields leave a setting as it was.
    public mutating func apply(_ control: Control) {
        if let value = control.desiredAccuracy { desiredAccuracyMeters = value }
        if let value = control.distanceFilter { distanceFilterMeters = value > 0 ? value : nil }
        if let value = control.paused { paused = value }
    }

    /// Whether to publish `estimate`; when it says yes it remembers the fix as the last published.
    public mutating func shouldPublish(_ coordinate: Coordinate, haccMeters: Double, t: Double) -> Bool {
        guard !paused else { return false }
        if let last = lastPublished {
            if let wanted = desiredAccuracyMeters, haccMeters > wanted, t - last.t < fallbackAfterSeconds { return false }
            if let filter = distanceFilterMeters, FastDistance.meters(last.coordinate, coordinate) < filter { return false }
        }
        lastPublished = (coordinate, t)
        return true
    }

    public static func == (a: OutputPolicy, b: OutputPolicy) -> Bool {
        a.desiredAccuracyMeters == b.desiredAccuracyMeters && a.distanceFilterMeters == b.distanceFilterMeters
            && a.paused == b.paused && a.fallbackAfterSeconds == b.fallbackAfterSeconds
            && a.lastPublished?.coordinate == b.lastPublished?.coordinate && a.lastPublished?.t == b.lastPublished?.t
    }
}

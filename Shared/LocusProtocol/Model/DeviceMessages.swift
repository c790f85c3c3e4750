/// Messages about a device other than its position: activity, steering and visits.

public enum MotionActivity: String, Sendable, Equatable, CaseIterable {
    case stationary, walking, running, cycling, automotive, unknown
}

public enum MotionConfidence: String, Sendable, Equatable, CaseIterable {
    case low, medium, high
}

/// What the device is doing (Core Motion's activity). Type "motion" on `motion.<device>`.
public struct Motion: Sendable, Equatable {
    public var device: String
    public var activity: MotionActivity
    public var confidence: MotionConfidence

    public init(device: String, activity: MotionActivity, confidence: MotionConfidence) {
        self.device = device
        self.activity = activity
        self.confidence = confidence
    }
}

public enum PowerMode: String, Sendable, Equatable, CaseIterable {
    case normal, low
}

/// Steers a device's providers and fusion. Type "control" on `control.<device>`; nil fields leave a setting unchanged.
public struct Control: Sendable, Equatable {
    public var device: String
    /// Wanted accuracy in metres, > 0.
    public var desiredAccuracy: Double?
    /// Minimum movement in metres before a new fix is published, ≥ 0.
    public var distanceFilter: Double?
    public var paused: Bool?
    public var powerMode: PowerMode?
    /// Why, for a person reading the stream.
    public var reason: String?

    public init(
        device: String, desiredAccuracy: Double? = nil, distanceFilter: Double? = nil, paused: Bool? = nil,
        powerMode: PowerMode? = nil, reason: String? = nil
    ) {
        self.device = device
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilter = distanceFilter
        self.paused = paused
        self.powerMode = powerMode
        self.reason = reason
    }
}

/// A place the device stayed at (Core Location's `CLVisit`). Type "visit" on `visit.<device>`.
public struct Visit: Sendable, Equatable {
    public var device: String
    public var lat: Double
    public var lon: Double
    /// Metres, > 0.
    public var hacc: Double
    /// Seconds since the Unix epoch.
    public var arrival: Double
    /// Seconds since the Unix epoch; nil while the device is still there.
    public var departure: Double?

    public init(device: String, lat: Double, lon: Double, hacc: Double, arrival: Double, departure: Double? = nil) {
        self.device = device
        self.lat = lat
        self.lon = lon
        self.hacc = hacc
        self.arrival = arrival
        self.departure = departure
    }
}

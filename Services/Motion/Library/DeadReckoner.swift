public import LocusGeo

/// A position carried forward without fixes: from the last good fix along its course at its
/// speed (capped by what the activity makes plausible), with a radius that only grows.
///
/// Stepping is incremental, so an activity change mid-outage changes the speed cap and the
/// growth rate from then on without ever shrinking the radius.
public struct DeadReckoner: Sendable, Equatable {
    public private(set) var coordinate: Coordinate
    /// 68 % radius in metres; never decreases.
    public private(set) var radiusMeters: Double
    /// Time of the estimate, Unix seconds.
    public private(set) var t: Double
    /// Speed over ground from the last good fix (m/s), nil when unknown.
    public let speedMetersPerSecond: Double?
    /// Course from the last good fix (degrees true), nil when unknown.
    public let courseDegrees: Double?
    /// Extra radius growth (m/s) from the fix's own speed uncertainty.
    public let speedAccuracyMetersPerSecond: Double

    public init(from fix: GoodFix) {
        coordinate = fix.coordinate
        radiusMeters = fix.haccMeters
        t = fix.t
        speedMetersPerSecond = fix.speedMetersPerSecond
        courseDegrees = fix.courseDegrees
        speedAccuracyMetersPerSecond = fix.speedAccuracyMetersPerSecond ?? 0
    }

    /// Whether the position moves; without both speed and course it is held in place.
    public var extrapolates: Bool { speedMetersPerSecond != nil && courseDegrees != nil }

    /// Carries the estimate forward to `time` under `profile`; earlier times leave it unchanged.
    public mutating func advance(to time: Double, profile: ActivityProfile) {
        let dt = time - t
        guard dt > 0 else { return }
        if let speed = speedMetersPerSecond, let course = courseDegrees {
            let capped = min(speed, profile.maximumSpeedMetersPerSecond)
            if capped > 0 {
                coordinate = Geodesic.destination(from: coordinate, azimuthDegrees: course, distanceMeters: capped * dt)
            }
        }
        radiusMeters += (profile.radiusGrowthMetersPerSecond + speedAccuracyMetersPerSecond) * dt
        t = time
    }
}

/// The last fix that counted as good: what dead reckoning and the cache start from.
public struct GoodFix: Sendable, Equatable {
    public var coordinate: Coordinate
    public var haccMeters: Double
    public var t: Double
    public var speedMetersPerSecond: Double?
    public var speedAccuracyMetersPerSecond: Double?
    public var courseDegrees: Double?
    public var altitudeMeters: Double?

    public init(coordinate: Coordinate, haccMeters: Double, t: Double, speedMetersPerSecond: Double? = nil,
                speedAccuracyMetersPerSecond: Double? = nil, courseDegrees: Double? = nil, altitudeMeters: Double? = nil) {
        self.coordinate = coordinate
        self.haccMeters = haccMeters
        self.t = t
        self.speedMetersPerSecond = speedMetersPerSecond
        self.speedAccuracyMetersPerSecond = speedAccuracyMetersPerSecond
        self.courseDegrees = courseDegrees
        self.altitudeMeters = altitudeMeters
    }
}

public import LocusGeo

/// What the filter believes at one instant, in protocol units.
public struct FilterEstimate: Sendable, Equatable {
    public var coordinate: Coordinate
    /// 68 % radius, metres, including the correlated share no filter can remove.
    public var haccMeters: Double
    public var speedMetersPerSecond: Double
    /// Degrees true in [0, 360), nil while the speed is too small to have a direction.
    public var courseDegrees: Double?
    /// One-sigma speed uncertainty, m/s.
    public var speedAccuracy: Double
    /// Time of the estimate, seconds since the Unix epoch.
    public var t: Double
}

public import LocusProtocol

/// What dead reckoning may assume for one activity: how fast such a device plausibly moves
/// and how fast the uncertainty of a position estimated without fixes grows.
///
/// Growth is linear in time, per activity: a person standing still drifts little (an
/// elevator moves vertically), a car can turn off or brake at any moment.
public struct ActivityProfile: Sendable, Equatable {
    /// Speeds above this (m/s) are capped when extrapolating.
    public var maximumSpeedMetersPerSecond: Double
    /// Radius growth in metres per second without fixes.
    public var radiusGrowthMetersPerSecond: Double

    public init(maximumSpeedMetersPerSecond: Double, radiusGrowthMetersPerSecond: Double) {
        self.maximumSpeedMetersPerSecond = maximumSpeedMetersPerSecond
        self.radiusGrowthMetersPerSecond = radiusGrowthMetersPerSecond
    }

    /// Defaults (docs/motion.md): a stationary device holds its place (speed cap 0).
    public static let defaultsByActivity: [MotionActivity: ActivityProfile] = [
        .stationary: ActivityProfile(maximumSpeedMetersPerSecond: 0, radiusGrowthMetersPerSecond: 0.05),
        .walking: ActivityProfile(maximumSpeedMetersPerSecond: 2.5, radiusGrowthMetersPerSecond: 0.7),
        .running: ActivityProfile(maximumSpeedMetersPerSecond: 6, radiusGrowthMetersPerSecond: 1.5),
        .cycling: ActivityProfile(maximumSpeedMetersPerSecond: 12, radiusGrowthMetersPerSecond: 2.5),
        .automotive: ActivityProfile(maximumSpeedMetersPerSecond: 60, radiusGrowthMetersPerSecond: 4),
        .unknown: ActivityProfile(maximumSpeedMetersPerSecond: 60, radiusGrowthMetersPerSecond: 4),
    ]
}

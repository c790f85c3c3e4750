import LocusGeo

/// The result of `locus bench geofence`: how fast the geofence kernel answers "which
/// circles contain this point", on one core.
public struct GeofenceBenchReport: Sendable, Equatable {
    public var circles: Int
    public var points: Int
    public var seed: UInt64
    /// Points answered per second of CPU time on one thread.
    public var pointsPerSecond: Double
    /// (point, circle) containments found; fixed for a given scene and seed.
    public var hits: Int

    /// True when the run reaches `GeofenceBenchCore.targetPointsPerSecond`.
    public var meetsTarget: Bool { pointsPerSecond >= GeofenceBenchCore.targetPointsPerSecond }

    /// One line for the terminal.
    public var summary: String {
        let rate = (pointsPerSecond / 1_000).rounded() / 1_000
        return "geofence kernel: \(circles) circles, \(points) points, seed \(seed): \(rate) M points/s/core, \(hits) hits"
            + (meetsTarget ? "" : " (below the 2 M points/s target)")
    }
}

/// Runs the geofence kernel benchmark (`GeofenceKernelBench`) for the command line.
///
/// The default scene is the project's reference: 10 000 circles of 100–1000 m in a 50 km
/// square and 1 000 000 random points; a release build is expected to answer at least
/// 2 M points per second per core.
public enum GeofenceBenchCore {
    public static let targetPointsPerSecond = 2_000_000.0

    public static func run(circles: Int = 10_000, points: Int = 1_000_000, seed: UInt64 = 1) -> GeofenceBenchReport {
        let result = GeofenceKernelBench.run(circles: circles, points: points, seed: seed)
        return GeofenceBenchReport(circles: circles, points: points, seed: seed, pointsPerSecond: result.pointsPerSecond, hits: result.hits)
    }
}

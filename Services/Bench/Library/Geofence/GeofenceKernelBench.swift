public import LocusGeo
import Foundation

/// The geofence service's inner loop measured alone: "which circles contain this point",
/// through `SpatialIndex` and the exact `Circle.contains`.
///
/// The scene: `circles` circles of radius 100–1000 m centred uniformly in a 50 km square
/// near 45° N, and `points` points uniform in the same square, all drawn from `seed`.
/// Only the queries are timed (building the index and drawing points are not), both in
/// CPU time of the calling thread — the figure per core, which stays honest on a busy
/// machine where other processes take the core away — and in wall time.
public enum GeofenceKernelBench {
    /// Side of the square scene, metres.
    public static let sceneSideMeters = 50_000.0

    /// One run's figures.
    public struct Measurement: Sendable, Equatable {
        public var points: Int
        /// (point, circle) containments found; the same for a given seed.
        public var hits: Int
        /// CPU time the measuring thread spent in the queries.
        public var cpuSeconds: Double
        /// Wall-clock time of the queries, including time the thread waited for a core.
        public var wallSeconds: Double

        public init(points: Int, hits: Int, cpuSeconds: Double, wallSeconds: Double) {
            self.points = points
            self.hits = hits
            self.cpuSeconds = cpuSeconds
            self.wallSeconds = wallSeconds
        }

        public var pointsPerCPUSecond: Double { Double(points) / max(cpuSeconds, 1e-9) }
        public var pointsPerWallSecond: Double { Double(points) / max(wallSeconds, 1e-9) }
    }

    /// Runs the scene once on the calling thread; returns queries per CPU second and how
    /// many (point, circle) containments were found.
    public static func run(circles: Int, points: Int, seed: UInt64) -> (pointsPerSecond: Double, hits: Int) {
        let measured = measure(circles: circles, points: points, seed: seed)
        return (measured.pointsPerCPUSecond, measured.hits)
    }

    /// Runs the scene once on the calling thread, timed in CPU and wall time.
    public static func measure(circles: Int, points: Int, seed: UInt64) -> Measurement {
        var random = SeededGenerator(seed: seed)
        let plane = LocalTangentPlane(origin: Coordinate(lat: 45, lon: 7))
        let half = sceneSideMeters / 2
        func randomPoint() -> Coordinate {
            plane.unproject(east: Double.random(in: -half...half, using: &random), north: Double.random(in: -half...half, using: &random))
        }
        var shapes: [Circle] = []
        shapes.reserveCapacity(circles)
        var index = SpatialIndex<Int>()
        for number in 0..<circles {
            let circle = Circle(center: randomPoint(), radiusMeters: Double.random(in: 100...1000, using: &random))
            shapes.append(circle)
            index.insert(number, box: circle.boundingBox)
        }
        let queries = (0..<points).map { _ in randomPoint() }

        var hits = 0
        let wallStart = monotonicSeconds()
        let start = threadCPUSeconds()
        shapes.withUnsafeBufferPointer { shapes in
            for point in queries {
                index.forEachCandidate(containing: point) { number in
                    if shapes[number].contains(point) { hits += 1 }
                }
            }
        }
        let seconds = threadCPUSeconds() - start
        let wallSeconds = monotonicSeconds() - wallStart
        return Measurement(points: points, hits: hits, cpuSeconds: seconds, wallSeconds: wallSeconds)
    }

    /// A clock that only moves forward, seconds.
    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU time consumed by the calling thread, seconds.
    public static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

import Foundation

/// The geofence service's inner loop measured alone: "which circles contain this point",
/// through `SpatialIndex` and the exact `Circle.contains`.
///
/// The scene: `circles` circles of radius 100–1000 m centred uniformly in a 50 km square
/// near 45° N, and `points` points uniform in the same square, all drawn from `seed`.
/// Only the queries are timed (building the index and drawing points are not), in CPU
/// time of the calling thread, so the figure is per core even on a busy machine.
public enum GeofenceKernelBench {
    /// Side of the square scene, metres.
    public static let sceneSideMeters = 50_000.0

    /// Runs the scene once on the calling thread; returns queries per second and how many
    /// (point, circle) containments were found, which is the same for a given seed.
    public static func run(circles: Int, points: Int, seed: UInt64) -> (pointsPerSecond: Double, hits: Int) {
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
        let start = threadCPUSeconds()
        shapes.withUnsafeBufferPointer { shapes in
            for point in queries {
                index.forEachCandidate(containing: point) { number in
                    if shapes[number].contains(point) { hits += 1 }
                }
            }
        }
        let seconds = threadCPUSeconds() - start
        return (Double(points) / max(seconds, 1e-9), hits)
    }

    /// CPU time consumed by the calling thread, seconds.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

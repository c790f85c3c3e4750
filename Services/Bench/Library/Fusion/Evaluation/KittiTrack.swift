import Foundation
import LocusFusion

/// The KITTI reference drive (`truth/KittiGps_converted.txt`: `Time,X,Y,Z`, metres east,
/// north, up in a local frame): a clean trajectory to which the evaluation adds known noise.
public struct KittiTrack: Sendable {
    public struct Sample: Sendable, Equatable {
        public var t: Double
        public var east: Double
        public var north: Double
    }

    public var samples: [Sample]

    public init(contentsOf path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        samples = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",")
            guard fields.count >= 3, let t = Double(fields[0]), let east = Double(fields[1]), let north = Double(fields[2]) else { continue }
            samples.append(Sample(t: t, east: east, north: north))
        }
    }

    /// The true velocity (m/s) at each sample: central differences of the positions (one-sided
    /// at the ends), what a receiver's Doppler measures apart from its noise.
    public static func velocities(of samples: [Sample]) -> [(east: Double, north: Double)] {
        samples.indices.map { index in
            let before = samples[max(0, index - 1)], after = samples[min(samples.count - 1, index + 1)]
            let dt = after.t - before.t
            guard dt > 0 else { return (0, 0) }
            return ((after.east - before.east) / dt, (after.north - before.north) / dt)
        }
    }
}

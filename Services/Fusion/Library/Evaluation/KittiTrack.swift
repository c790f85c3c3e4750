import Foundation

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
}

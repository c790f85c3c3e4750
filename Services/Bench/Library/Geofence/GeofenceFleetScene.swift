import Foundation
import LocusGeo
import LocusProtocol

/// The stateful geofence benchmarks' scene: the kernel's circles (same seed, same draws)
/// in a square, and a fleet driving straight lines at 15 m/s with one fix per second of
/// fix time. The bus run and the in-process run use the same one, so their figures can be
/// set side by side.
struct GeofenceFleetScene {
    let circles: [(center: Coordinate, radiusMeters: Double)]
    let devices: Int
    let fixes: Int
    /// Fix time of the first round of fixes.
    let t0 = 1_790_000_000.0
    let plane = LocalTangentPlane(origin: Coordinate(lat: 45, lon: 7))
    let starts: [(east: Double, north: Double, heading: Double)]

    init(circles count: Int, devices: Int, fixes: Int, seed: UInt64, sideMeters: Double) {
        var random = SeededGenerator(seed: seed)
        let half = sideMeters / 2
        var circles: [(center: Coordinate, radiusMeters: Double)] = []
        for _ in 0..<count {
            let c = plane.unproject(east: Double.random(in: -half...half, using: &random), north: Double.random(in: -half...half, using: &random))
            circles.append((c, Double.random(in: 100...1000, using: &random)))
        }
        var starts: [(east: Double, north: Double, heading: Double)] = []
        for _ in 0..<devices {
            starts.append((Double.random(in: -half...half, using: &random), Double.random(in: -half...half, using: &random),
                           Double.random(in: 0..<(2 * Double.pi), using: &random)))
        }
        self.circles = circles
        self.devices = devices
        self.fixes = fixes
        self.starts = starts
    }

    /// The `region.cmd` adds for the scene's circles, owner "bench", ids c0, c1, ….
    var regionAdds: [RegionAdd] {
        circles.enumerated().map { number, circle in
            RegionAdd(owner: "bench", region: Region(id: "c\(number)", shape: .circle(
                center: GeoPoint(lon: circle.center.lon, lat: circle.center.lat), radius: circle.radiusMeters)))
        }
    }

    /// Every fix in publishing order (round-robin over the devices), named `prefix` + number.
    func fleet(_ prefix: String, ids: inout MessageIDGenerator) -> [(topic: String, message: Message)] {
        var messages: [(topic: String, message: Message)] = []
        messages.reserveCapacity(fixes)
        for number in 0..<fixes {
            let device = number % devices, step = Double(number / devices)
            let s = starts[device]
            let p = plane.unproject(east: s.east + 15 * step * cos(s.heading), north: s.north + 15 * step * sin(s.heading))
            let name = prefix + String(device)
            let fix = Location(device: name, source: "fused", lat: p.lat, lon: p.lon, hacc: 8)
            messages.append((Topic.locationFused(name), Message(body: .location(fix), id: ids.next(), t: t0 + step,
                                                                  src: "bench/fleet", seq: number + 1)))
        }
        return messages
    }
}

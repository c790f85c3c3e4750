import Foundation
import LocusGeo
import LocusProtocol
import LocusProvider

/// The fleet of the geofence scene as a provider would publish it: raw GPS fixes with
/// position noise and a Doppler velocity, one per device per second of fix time, in
/// round-robin order. What `locus bench pipeline --fleet` feeds to locus-fusion.
extension GeofenceFleetScene {
    /// Per-axis position noise of the raw fixes, metres (fixes say `hacc` 5).
    static let rawNoiseMeters = 3.0

    /// Every raw fix as a text-form or bus frame: topic `topicPrefix` + device name, body
    /// encoded. Device names are `devicePrefix` + number; fix times start at `t0`.
    func rawFrames(topicPrefix: String = Topic.locationRawPrefix, devicePrefix: String, t0: Double, seed: UInt64,
                   src: String = "provider/bench") -> [(topic: String, body: [UInt8])] {
        var random = GaussianNoise(seed: seed)
        var ids = MessageIDGenerator()
        let names = (0..<devices).map { devicePrefix + String($0) }
        var frames: [(topic: String, body: [UInt8])] = []
        frames.reserveCapacity(fixes)
        for number in 0..<fixes {
            let device = number % devices, step = Double(number / devices)
            let s = starts[device]
            let noise = (east: random.standard() * Self.rawNoiseMeters, north: random.standard() * Self.rawNoiseMeters)
            let p = plane.unproject(east: s.east + 15 * step * cos(s.heading) + noise.east,
                                    north: s.north + 15 * step * sin(s.heading) + noise.north)
            var course = 90 - s.heading * 180 / .pi
            course -= 360 * (course / 360).rounded(.down)
            let fix = Location(device: names[device], source: "gps", lat: (p.lat * 1e7).rounded() / 1e7, lon: (p.lon * 1e7).rounded() / 1e7,
                               hacc: 5, alt: 250, vacc: 8, speed: 15, speedAcc: 0.5, course: (course * 100).rounded() / 100, mode: "3d",
                               sats: 9, hdop: 0.9)
            let message = Message(body: .location(fix), id: ids.next(), t: t0 + step, src: src, seq: number + 1)
            frames.append((topicPrefix + names[device], MessageCodec.encode(message)))
        }
        return frames
    }

    /// The scene's circles as `region.cmd` frames for `owner` (ids c0, c1, …).
    func regionFrames(owner: String, t: Double) -> [(topic: String, body: [UInt8])] {
        var ids = MessageIDGenerator()
        return regionAdds.map { add in
            var add = add
            add.owner = owner
            return (Topic.regionCmd, MessageCodec.encode(Message(body: .regionAdd(add), id: ids.next(), t: t, src: "bench/regions")))
        }
    }
}

public import LocusProtocol
import LocusGeo

/// Turns GPX points into timed fixes for replay.
///
/// Times: points keep their own times; untimed points between timed ones get times in
/// proportion to distance; leading and trailing untimed points (or a file with no times
/// at all, such as a route or a list of waypoints) move at `metersPerSecond` from
/// `startTime`, as Xcode's location simulation moves through waypoints. Points whose
/// time does not increase are dropped (counted in `droppedPoints`).
///
/// With `hz`, fixes are interpolated along each segment (great-circle) at that rate;
/// speed and course come from the segment unless the point carries its own. The fixes
/// of a pass are built in memory, so interpolation is bounded: a gap that would need more
/// than `maximumInterpolatedFixesPerGap` fixes (a logger pause, or a bad time) is not
/// filled, and no pass interpolates more than `maximumInterpolatedFixesPerPass` fixes.
/// The recorded points are always replayed.
public struct GPXTimeline: Sendable {
    public struct Fix: Sendable, Equatable {
        public var t: Double
        public var location: Location
    }

    /// A day at 1 Hz; larger gaps are replayed as their two end points.
    public static let maximumInterpolatedFixesPerGap = 86_400
    /// About 200 MB of fixes; beyond it the rest of the pass is replayed point to point.
    public static let maximumInterpolatedFixesPerPass = 1_000_000

    public private(set) var points: [(point: GPXPoint, t: Double)] = []
    public private(set) var droppedPoints = 0

    public init(points input: [GPXPoint], startTime: Double, metersPerSecond: Double) {
        let times = Self.assignTimes(input, startTime: startTime, metersPerSecond: max(metersPerSecond, 0.01))
        var last = -Double.infinity
        for (point, time) in zip(input, times) {
            guard time > last else {
                droppedPoints += 1
                continue
            }
            points.append((point, time))
            last = time
        }
    }

    public var duration: Double { (points.last?.t ?? 0) - (points.first?.t ?? 0) }

    /// The fixes of one pass, shifted by `offset` seconds (for `--loop`).
    public func fixes(device: String, source: String, defaultHaccMeters: Double, hz: Double?, offset: Double = 0) -> [Fix] {
        guard !points.isEmpty else { return [] }
        var out: [Fix] = []
        var interpolated = 0
        for index in points.indices {
            let (point, t) = points[index]
            let next = index + 1 < points.count ? points[index + 1] : nil
            let previous = index > 0 ? points[index - 1] : nil
            let segment = next.map { segmentMotion(from: (point, t), to: $0) } ?? previous.map { segmentMotion(from: $0, to: (point, t)) }
            out.append(Fix(t: t + offset, location: location(point, device: device, source: source, hacc: defaultHaccMeters,
                                                               motion: segment)))
            guard let hz, hz > 0, hz.isFinite, let next else { continue }
            let needed = ((next.t - t) * hz).rounded(.up)
            guard needed <= Double(Self.maximumInterpolatedFixesPerGap),
                  interpolated + Int(needed) <= Self.maximumInterpolatedFixesPerPass else { continue }
            interpolated += Int(needed)
            let step = 1 / hz
            var k = 1.0
            while t + k * step < next.t - 1e-9 {
                let fraction = (k * step) / (next.t - t)
                let line = Geodesic.inverse(Coordinate(lat: point.lat, lon: point.lon), Coordinate(lat: next.point.lat, lon: next.point.lon))
                let spot = Geodesic.destination(from: Coordinate(lat: point.lat, lon: point.lon), azimuthDegrees: line.azimuth1Degrees,
                                                distanceMeters: line.distanceMeters * fraction)
                var between = GPXPoint(lat: spot.lat, lon: spot.lon)
                if let a = point.elevation, let b = next.point.elevation { between.elevation = a + (b - a) * fraction }
                between.hdop = point.hdop
                out.append(Fix(t: t + k * step + offset,
                               location: location(between, device: device, source: source, hacc: defaultHaccMeters, motion: segment)))
                k += 1
            }
        }
        return out
    }

    private func segmentMotion(from a: (GPXPoint, Double), to b: (GPXPoint, Double)) -> (speed: Double, course: Double?) {
        let line = Geodesic.inverse(Coordinate(lat: a.0.lat, lon: a.0.lon), Coordinate(lat: b.0.lat, lon: b.0.lon))
        let seconds = b.1 - a.1
        let speed = seconds > 0 ? line.distanceMeters / seconds : 0
        return (speed, line.distanceMeters > 0.01 ? FixMapping.normalizedCourse(line.azimuth1Degrees) : nil)
    }

    private func location(_ point: GPXPoint, device: String, source: String, hacc: Double,
                          motion: (speed: Double, course: Double?)?) -> Location {
        let accuracy = point.hdop.map { NMEAAccuracyModel.radius68(hdop: $0, quality: nil) } ?? hacc
        return Location(device: device, source: source, lat: point.lat, lon: point.lon, hacc: accuracy,
                        alt: point.elevation, vacc: point.vdop.map { $0 * NMEAAccuracyModel.uereMeters(quality: nil) },
                        speed: point.speed ?? motion?.speed, course: point.course ?? motion?.course,
                        mode: point.elevation == nil ? "2d" : "3d", sats: point.sats, hdop: point.hdop)
    }

    /// Times for every point (see the type's comment); the result may still go backwards
    /// where the file does.
    static func assignTimes(_ points: [GPXPoint], startTime: Double, metersPerSecond: Double) -> [Double] {
        guard !points.isEmpty else { return [] }
        var cumulative = [0.0]
        for index in points.indices.dropFirst() {
            let a = points[index - 1], b = points[index]
            cumulative.append(cumulative[index - 1] + Geodesic.distance(Coordinate(lat: a.lat, lon: a.lon), Coordinate(lat: b.lat, lon: b.lon)))
        }
        let timed = points.indices.filter { points[$0].time != nil }
        guard let firstTimed = timed.first, let lastTimed = timed.last else {
            return cumulative.map { startTime + $0 / metersPerSecond }
        }
        var times = points.map { $0.time ?? 0 }
        for index in 0..<firstTimed {
            times[index] = times[firstTimed] - (cumulative[firstTimed] - cumulative[index]) / metersPerSecond
        }
        for index in (lastTimed + 1)..<points.count {
            times[index] = times[lastTimed] + (cumulative[index] - cumulative[lastTimed]) / metersPerSecond
        }
        for (a, b) in zip(timed, timed.dropFirst()) where b > a + 1 {
            let span = cumulative[b] - cumulative[a]
            for index in (a + 1)..<b {
                let fraction = span > 0 ? (cumulative[index] - cumulative[a]) / span : Double(index - a) / Double(b - a)
                times[index] = times[a] + (times[b] - times[a]) * fraction
            }
        }
        return times
    }
}

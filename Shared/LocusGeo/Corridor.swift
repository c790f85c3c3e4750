import Foundation

/// A route with a width: every point within `widthMeters` (geodesic, on WGS-84) of a
/// polyline whose legs are geodesics. Inside means at most that far from the route.
///
/// The nearest point of each leg is found by walking along it (Karney's direct and
/// inverse problems) until the line from it to the point meets the leg at a right angle
/// (the method of Baselga and Martínez-Llario: each step moves by the along-track
/// distance of a sphere, a few steps reach a tenth of a millimetre). Legs whose box lies
/// farther than the best distance so far are skipped by a bound that never overestimates.
public struct Corridor: Sendable, Hashable {
    /// The route's positions, repeated ones dropped.
    public let line: [Coordinate]
    /// Metres on each side of the route.
    public let widthMeters: Double
    /// Holds every point of the corridor.
    public let boundingBox: BoundingBox
    /// Metres along the route to each position.
    public let cumulativeMeters: [Double]
    private let legs: [Leg]

    struct Leg: Sendable, Hashable {
        var start: Coordinate
        var end: Coordinate
        var azimuth: Double
        var length: Double
        /// Holds the whole geodesic leg (sampled, widened by its sagitta).
        var box: BoundingBox
    }

    /// Checks the route (≥ 2 distinct valid positions) and the width (> 0, finite).
    public init(line input: [Coordinate], widthMeters: Double) throws(ShapeError) {
        guard widthMeters.isFinite, widthMeters > 0 else { throw ShapeError("corridor width \(widthMeters) m must be positive") }
        for (index, c) in input.enumerated() where !c.isValid {
            throw ShapeError("route position \(index) is out of range or not a number (GeoJSON order is [lon, lat])")
        }
        var line: [Coordinate] = []
        for c in input where c != line.last { line.append(c) }
        guard line.count >= 2 else { throw ShapeError("a corridor's route needs at least 2 distinct positions") }
        self.line = line
        self.widthMeters = widthMeters
        var legs: [Leg] = []
        var cumulative = [0.0]
        for (a, b) in zip(line, line.dropFirst()) {
            let solution = Geodesic.inverse(a, b)
            var samples = [a, b]
            for k in 1..<8 {
                samples.append(Geodesic.destination(from: a, azimuthDegrees: solution.azimuth1Degrees, distanceMeters: solution.distanceMeters * Double(k) / 8))
            }
            let step = solution.distanceMeters / 8
            let sagitta = step * step / SphereBound.radiusMeters + 1
            let box = MultiPolygon.enclosingBox(samples.map { BoundingBox(minLat: $0.lat, minLon: $0.lon, maxLat: $0.lat, maxLon: $0.lon) })
            legs.append(Leg(start: a, end: b, azimuth: solution.azimuth1Degrees, length: solution.distanceMeters, box: box.expanded(byMeters: sagitta)))
            cumulative.append(cumulative[cumulative.count - 1] + solution.distanceMeters)
        }
        self.legs = legs
        self.cumulativeMeters = cumulative
        boundingBox = MultiPolygon.enclosingBox(legs.map(\.box)).expanded(byMeters: widthMeters)
    }

    /// Length of the route in metres.
    public var lengthMeters: Double { cumulativeMeters[cumulativeMeters.count - 1] }

    /// Where `p` stands relative to the route: metres to its nearest point, and metres
    /// along the route to that point.
    public func nearest(_ p: Coordinate) -> (distanceMeters: Double, progressMeters: Double) {
        var best = (distanceMeters: Double.infinity, progressMeters: 0.0)
        for (number, leg) in legs.enumerated() {
            if Self.lowerBound(from: p, to: leg.box) >= best.distanceMeters { continue }
            let (distance, along) = Self.nearest(on: leg, to: p)
            if distance < best.distanceMeters { best = (distance, cumulativeMeters[number] + along) }
        }
        return best
    }

    /// Metres from the corridor's edge: negative inside, positive outside.
    public func signedDistanceMeters(_ p: Coordinate) -> Double { nearest(p).distanceMeters - widthMeters }

    public func contains(_ p: Coordinate) -> Bool { nearest(p).distanceMeters <= widthMeters }

    /// The nearest point of one geodesic leg: (distance to it, metres along the leg).
    static func nearest(on leg: Leg, to p: Coordinate) -> (Double, Double) {
        // Start from the tangent plane's projection, then correct on the ellipsoid.
        let plane = LocalTangentPlane(origin: leg.start)
        let q = plane.project(p), e = plane.project(leg.end)
        let squared = e.east * e.east + e.north * e.north
        var along = squared > 0 ? min(max((q.east * e.east + q.north * e.north) / squared, 0), 1) * leg.length : 0
        for _ in 0..<30 {
            let x = along <= 0 ? leg.start : along >= leg.length ? leg.end
                : Geodesic.destination(from: leg.start, azimuthDegrees: leg.azimuth, distanceMeters: along)
            let towards = Geodesic.inverse(x, p)
            let heading = along >= leg.length ? Geodesic.inverse(leg.start, leg.end).azimuth2Degrees
                : along <= 0 ? leg.azimuth : Geodesic.inverse(x, leg.end).azimuth1Degrees
            let angle = (towards.azimuth1Degrees - heading) * Double.pi / 180
            let ratio = towards.distanceMeters / SphereBound.radiusMeters
            let step = ratio < Double.pi / 2 ? SphereBound.radiusMeters * atan(tan(ratio) * cos(angle)) : 0
            let next = min(max(along + step, 0), leg.length)
            if abs(next - along) < 1e-4 || towards.distanceMeters == 0 { return (towards.distanceMeters, along) }
            along = next
        }
        let x = Geodesic.destination(from: leg.start, azimuthDegrees: leg.azimuth, distanceMeters: along)
        return (Geodesic.distance(x, p), along)
    }

    /// A distance no point of `box` can be nearer `p` than, on a sphere never longer than
    /// the ellipsoid (see `SphereBound`): the latitude gap, or the gap to the nearer
    /// bounding meridian.
    static func lowerBound(from p: Coordinate, to box: BoundingBox) -> Double {
        guard !box.contains(p) else { return 0 }
        let gapLat = max(0, box.minLat - p.lat, p.lat - box.maxLat) * Double.pi / 180
        var gapLon = 0.0
        if !box.crossesAntimeridian {
            gapLon = DistanceBounds.longitudeGap(p.lon, low: box.minLon, high: box.maxLon) * Double.pi / 180
        }
        let meridian = asin(min(1, cos(p.lat * Double.pi / 180) * sin(min(gapLon, Double.pi / 2))))
        return SphereBound.radiusMeters * max(gapLat, meridian) * 0.9999
    }
}

import Foundation

/// A circle's signed distance, fast where a stated error allows and exact elsewhere, from
/// seven doubles: 56 bytes, so a per-fix loop over many circles reads about one cache line each.
public struct CircleDistance: Sendable {
    public let center: Coordinate
    public let radiusMeters: Double
    private let sinCenterPhi: Double
    private let cosCenterPhi: Double
    /// `signedDistanceEstimate` uses the fast distance up to this squared distance from the
    /// centre, with `estimateErrorMeters` as its bound; −1 when the bound does not apply.
    private let estimateReachSq: Double
    private let estimateErrorMeters: Double

    init(center: Coordinate, radiusMeters: Double, estimateReachSq: Double, estimateErrorMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
        let centerPhi = center.lat * Double.pi / 180
        sinCenterPhi = sin(centerPhi)
        cosCenterPhi = cos(centerPhi)
        self.estimateReachSq = estimateReachSq
        self.estimateErrorMeters = estimateErrorMeters
    }

    /// Metres from the boundary: negative inside, positive outside, exact.
    public func signedDistance(_ p: Coordinate) -> Double {
        Geodesic.distance(center, p) - radiusMeters
    }

    /// The signed distance (negative inside) within a stated error, for callers that compare
    /// it with thresholds and need the exact value only when it lies that close to one:
    /// within `Circle.estimateReachBeyondMeters` of the boundary it is `FastDistance`'s
    /// (a few dozen multiplications, error micrometres for geofence-sized circles), farther
    /// away or where the bound does not hold it is the exact geodesic with error 0.
    @inline(__always)
    public func signedDistanceEstimate(_ p: Coordinate) -> (meters: Double, errorMeters: Double) {
        if estimateReachSq >= 0 {
            // Only points within the reach get here, so |Δφ| is tiny and the series hold.
            let squared = approximateSquared(p)
            if squared <= estimateReachSq { return (squared.squareRoot() - radiusMeters, estimateErrorMeters) }
        }
        return (signedDistance(p), 0)
    }

    /// `FastDistance.meters(center, p)` squared, without its trigonometry: the mean latitude
    /// is the centre's plus h = Δφ/2, and the fast path only runs for points in the box of a
    /// circle under 50 km, so |h| < 0.02 rad and the Taylor series below (to h⁵) are exact to
    /// 1e-16, far inside the 1 µm slack of the error bound.
    @inline(__always)
    func approximateSquared(_ p: Coordinate) -> Double {
        let radians = Double.pi / 180
        let deltaPhi = (p.lat - center.lat) * radians
        var deltaLon = p.lon - center.lon
        if deltaLon > 180 { deltaLon -= 360 } else if deltaLon < -180 { deltaLon += 360 }
        let h = deltaPhi / 2, h2 = h * h
        let cosH = 1 - h2 / 2 * (1 - h2 / 12)
        let sinH = h * (1 - h2 / 6 * (1 - h2 / 20))
        let sinMean = sinCenterPhi * cosH + cosCenterPhi * sinH
        let cosMean = cosCenterPhi * cosH - sinCenterPhi * sinH
        let w = 1 - WGS84.eccentricitySquared * sinMean * sinMean
        let inverseW = 1 / w
        let east = deltaLon * radians * cosMean * WGS84.semiMajorAxisMeters
        let north = deltaPhi * WGS84.semiMajorAxisMeters * (1 - WGS84.eccentricitySquared) * inverseW
        // (Δλ N cos φm)² + (Δφ M)² with N² = a²/w and M² = a²(1 − e²)²/w³.
        return (east * east + north * north) * inverseW
    }
}

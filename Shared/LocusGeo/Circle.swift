import Foundation

/// A geodesic circle: every point within `radiusMeters` of `center` on the WGS-84 ellipsoid.
///
/// `contains` is exact (it agrees with `Geodesic.distance(center, p) <= radiusMeters`) yet
/// costs a few dozen multiplications for most points: a point outside the
/// bounding box is rejected at once; otherwise `FastDistance` decides unless the point is
/// within that approximation's proven error bound of the boundary (a band a few
/// micrometres to centimetres wide), where the exact geodesic settles it. Circles too
/// large for the bound (radius over 50 km) or reaching within a few hundred metres of
/// 89.5° latitude always use the exact geodesic.
public struct Circle: Sendable, Hashable {
    /// Centre, radius and what the signed distance needs, in one 56-byte value a caller
    /// can keep apart from the rest (the geofence keeps one per region in a dense array).
    public let distance: CircleDistance
    public var center: Coordinate { distance.center }
    public var radiusMeters: Double { distance.radiusMeters }
    /// A box holding every point of the circle; see `BoundingBox` for the antimeridian
    /// and pole conventions.
    public let boundingBox: BoundingBox

    /// The fast test's thresholds on the squared approximate distance: below `insideBelowSq`
    /// the point is certainly inside, above `outsideAboveSq` certainly outside. Both are −1
    /// (deciding nothing) when the approximation's bound does not apply to this circle.
    /// Plain doubles rather than an optional pair keep the struct small: at fleet scale
    /// each test is a cache miss on this struct.
    private let insideBelowSq: Double
    private let outsideAboveSq: Double

    /// How far beyond the boundary `signedDistanceEstimate` stays fast (metres): more than
    /// any fix's accuracy margin a geofence normally meets.
    public static let estimateReachBeyondMeters = 2_000.0

    public init(center: Coordinate, radiusMeters: Double) {
        let radius = radiusMeters.isNaN ? 0 : max(0, radiusMeters)
        let box = Circle.boundingBox(center: center, radiusMeters: radius)
        self.boundingBox = box
        // Every point reaching the fast test lies inside the box, so within about 1.42 r of
        // the centre; the bound is checked up to 2 r (see FastDistance).
        let poleward = max(abs(box.minLat), abs(box.maxLat))
        if radius.isFinite, FastDistance.isBoundValid(distanceMeters: 2 * radius, maxAbsLatitudeDegrees: poleward) {
            let margin = FastDistance.errorBoundMeters(distanceMeters: radius, maxAbsLatitudeDegrees: poleward)
            let inner = max(0, radius - margin)
            let outer = radius + margin
            insideBelowSq = inner * inner
            outsideAboveSq = outer * outer
        } else {
            insideBelowSq = -1
            outsideAboveSq = -1
        }
        // The estimate covers points up to `reach` from the centre; its bound is taken at a
        // slightly larger distance (the exact distance may exceed the estimate by the bound)
        // and at the most poleward latitude such a point can have.
        let reach = radius + Circle.estimateReachBeyondMeters
        let reachPoleward = min(90, max(abs(center.lat), 0) + SphereBound.latitudeReachDegrees(distanceMeters: reach))
        if radius.isFinite, FastDistance.isBoundValid(distanceMeters: reach * 1.001 + 1, maxAbsLatitudeDegrees: reachPoleward) {
            distance = CircleDistance(center: center, radiusMeters: radius, estimateReachSq: reach * reach,
                                      estimateErrorMeters: FastDistance.errorBoundMeters(distanceMeters: reach * 1.001 + 1,
                                                                                         maxAbsLatitudeDegrees: reachPoleward))
        } else {
            distance = CircleDistance(center: center, radiusMeters: radius, estimateReachSq: -1, estimateErrorMeters: 0)
        }
    }

    /// A circle after checking its values, for input from clients.
    public static func validated(center: Coordinate, radiusMeters: Double) throws(ShapeError) -> Circle {
        guard center.isValid else {
            throw ShapeError("circle center (lon \(center.lon), lat \(center.lat)) is not a valid WGS-84 position")
        }
        guard radiusMeters.isFinite, radiusMeters > 0 else {
            throw ShapeError("circle radius \(radiusMeters) must be a positive number of metres")
        }
        return Circle(center: center, radiusMeters: radiusMeters)
    }

    /// True when `p` is within `radiusMeters` of the centre along the ellipsoid (exact).
    public func contains(_ p: Coordinate) -> Bool {
        guard boundingBox.contains(p) else { return false }
        if outsideAboveSq >= 0 {
            let squared = distance.approximateSquared(p)
            if squared < insideBelowSq { return true }
            if squared > outsideAboveSq { return false }
        }
        return Geodesic.distance(center, p) <= radiusMeters
    }

    /// Metres from the boundary: negative inside, positive outside, exact. Geofence
    /// hysteresis compares it with a fix's accuracy.
    public func signedDistance(_ p: Coordinate) -> Double {
        distance.signedDistance(p)
    }

    /// The signed distance within a stated error; see `CircleDistance.signedDistanceEstimate`.
    public func signedDistanceEstimate(_ p: Coordinate) -> (meters: Double, errorMeters: Double) {
        distance.signedDistanceEstimate(p)
    }

    /// Latitude reach is exact (the nearest point of a parallel lies along the meridian);
    /// longitude reach comes from `SphereBound`, which never underestimates it.
    static func boundingBox(center: Coordinate, radiusMeters radius: Double) -> BoundingBox {
        let pad = 1e-9  // degrees, about 0.1 mm, for rounding in Geodesic.destination
        let north = Geodesic.distance(center, Coordinate(lat: 90, lon: center.lon))
        let south = Geodesic.distance(center, Coordinate(lat: -90, lon: center.lon))
        let maxLat = radius >= north ? 90 : min(90, Geodesic.destination(from: center, azimuthDegrees: 0, distanceMeters: radius).lat + pad)
        let minLat = radius >= south ? -90 : max(-90, Geodesic.destination(from: center, azimuthDegrees: 180, distanceMeters: radius).lat - pad)
        guard maxLat < 90, minLat > -90,
              let halfWidth = SphereBound.longitudeHalfWidthDegrees(distanceMeters: radius, latitudeDegrees: center.lat),
              halfWidth < 180 else {
            return BoundingBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180)
        }
        return BoundingBox(
            minLat: minLat,
            minLon: normalizedLongitude(center.lon - halfWidth),
            maxLat: maxLat,
            maxLon: normalizedLongitude(center.lon + halfWidth)
        )
    }

    public static func == (lhs: Circle, rhs: Circle) -> Bool {
        lhs.center == rhs.center && lhs.radiusMeters == rhs.radiusMeters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(center)
        hasher.combine(radiusMeters)
    }
}

/// Any region Locus can monitor: the GeoJSON geometries of the protocol plus its Circle.
public enum Shape: Sendable, Hashable {
    case circle(Circle)
    case polygon(Polygon)
    case multiPolygon(MultiPolygon)
    case corridor(Corridor)

    /// True when `p` is inside the region.
    public func contains(_ p: Coordinate) -> Bool {
        switch self {
        case .circle(let circle): circle.contains(p)
        case .polygon(let polygon): polygon.contains(p)
        case .multiPolygon(let multi): multi.contains(p)
        case .corridor(let corridor): corridor.contains(p)
        }
    }

    /// Metres from the boundary, negative inside and positive outside, so hysteresis can
    /// ask "inside by more than the fix's accuracy?" with one number.
    public func signedDistanceMeters(_ p: Coordinate) -> Double {
        switch self {
        case .circle(let circle):
            return circle.signedDistance(p)
        case .polygon(let polygon): return polygon.signedDistanceMeters(p, exactWithin: .infinity)
        case .multiPolygon(let multi): return multi.signedDistanceMeters(p, exactWithin: .infinity)
        case .corridor(let corridor): return corridor.signedDistanceMeters(p)
        }
    }

    /// `signedDistanceMeters` where only values below `need` in size must be exact: a
    /// polygon answers from its grid far from the boundary with a value of the right sign
    /// at least `need` in size (see `PolygonIndex`); a circle is always exact.
    public func signedDistanceMeters(_ p: Coordinate, exactWithin need: Double) -> Double {
        switch self {
        case .circle(let circle): circle.signedDistance(p)
        case .polygon(let polygon): polygon.signedDistanceMeters(p, exactWithin: need)
        case .multiPolygon(let multi): multi.signedDistanceMeters(p, exactWithin: need)
        case .corridor(let corridor): corridor.signedDistanceMeters(p)
        }
    }

    /// `signedDistanceMeters` within a stated error: circles answer from the fast distance
    /// (see `Circle.signedDistanceEstimate`), polygons exactly (error 0). A caller comparing
    /// with thresholds asks for the exact value only when the estimate is within the error
    /// of one, which keeps decisions exact at a fraction of the cost.
    public func signedDistanceEstimate(_ p: Coordinate) -> (meters: Double, errorMeters: Double) {
        switch self {
        case .circle(let circle): circle.signedDistanceEstimate(p)
        default: (signedDistanceMeters(p), 0)
        }
    }

    /// The grid answering a polygon's containment and distance (nil for a circle): hot
    /// loops hold it by unmanaged reference while the shape keeps it alive.
    public var polygonIndex: PolygonIndex? {
        switch self {
        case .circle, .corridor: nil
        case .polygon(let polygon): polygon.index
        case .multiPolygon(let multi): multi.index
        }
    }

    /// A box holding the whole region, for the spatial index.
    public var boundingBox: BoundingBox {
        switch self {
        case .circle(let circle): circle.boundingBox
        case .polygon(let polygon): polygon.boundingBox
        case .multiPolygon(let multi): multi.boundingBox
        case .corridor(let corridor): corridor.boundingBox
        }
    }
}

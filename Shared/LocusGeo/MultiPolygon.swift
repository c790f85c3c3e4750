/// Several polygons monitored as one region (GeoJSON `MultiPolygon`), e.g. a campus
/// with separate sites, or a shape split at the antimeridian as RFC 7946 §3.1.9 asks.
public struct MultiPolygon: Sendable, Hashable {
    public let polygons: [Polygon]
    /// The union of the parts' boxes; wraps across ±180° when the parts sit on both
    /// sides of the antimeridian and are closer that way round.
    public let boundingBox: BoundingBox
    /// Every part's rings in one grid: the even–odd rule over all of them is the union of
    /// parts whose interiors do not overlap (as GEOS's prepared geometry counts them).
    let index: PolygonIndex

    public init(polygons: [Polygon]) {
        self.polygons = polygons
        self.boundingBox = MultiPolygon.enclosingBox(polygons.map(\.boundingBox))
        self.index = PolygonIndex(rings: polygons.flatMap(\.rings))
    }

    public static func == (lhs: MultiPolygon, rhs: MultiPolygon) -> Bool { lhs.polygons == rhs.polygons }
    public func hash(into hasher: inout Hasher) { hasher.combine(polygons) }

    /// Parses and validates each part, for input from clients.
    public static func validated(polygons rings: [[[Coordinate]]]) throws(ShapeError) -> MultiPolygon {
        guard !rings.isEmpty else { throw ShapeError("multipolygon has no polygons") }
        var parts: [Polygon] = []
        for (index, polygonRings) in rings.enumerated() {
            do {
                parts.append(try Polygon(rings: polygonRings, indexed: false))
            } catch {
                throw ShapeError("polygon \(index): \(error.message)")
            }
        }
        return MultiPolygon(polygons: parts)
    }

    /// True when `p` is in a part's interior (off every boundary).
    public func contains(_ p: Coordinate) -> Bool {
        guard boundingBox.contains(p) else { return false }
        return index.contains(p)
    }

    /// Interior, boundary or exterior, exactly.
    public func locate(_ p: Coordinate) -> PointLocation { index.locate(p) }

    /// Distance in metres from `p` to the nearest edge of any part (unsigned).
    public func distanceToBoundaryMeters(_ p: Coordinate) -> Double {
        index.distanceToBoundaryMeters(p)
    }

    /// Signed metres (negative inside), exact below `need` (see `PolygonIndex`).
    public func signedDistanceMeters(_ p: Coordinate, exactWithin need: Double) -> Double {
        index.signedDistanceMeters(p, exactWithin: need)
    }

    /// Smallest box over the parts, choosing between the plain longitude span and the
    /// one wrapping across ±180° (the narrower wins, so a Fiji split at 180° stays small).
    static func enclosingBox(_ boxes: [BoundingBox]) -> BoundingBox {
        guard let first = boxes.first else {
            return BoundingBox(minLat: 0, minLon: 0, maxLat: -1, maxLon: -1)  // empty: contains nothing
        }
        let minLat = boxes.map(\.minLat).min() ?? first.minLat
        let maxLat = boxes.map(\.maxLat).max() ?? first.maxLat
        let plainWest = boxes.map(\.minLon).min() ?? first.minLon
        let plainEast = boxes.map(\.maxLon).max() ?? first.maxLon
        // Wrapped alternative: east part starts at the smallest non-negative west edge,
        // west part ends at the largest negative east edge.
        let eastern = boxes.filter { $0.minLon >= 0 }
        let western = boxes.filter { $0.maxLon < 0 }
        if !eastern.isEmpty, !western.isEmpty, eastern.count + western.count == boxes.count {
            let wrapWest = eastern.map(\.minLon).min() ?? 0
            let wrapEast = western.map(\.maxLon).max() ?? 0
            let wrappedWidth = (180 - wrapWest) + (wrapEast + 180)
            if wrappedWidth < plainEast - plainWest {
                return BoundingBox(minLat: minLat, minLon: wrapWest, maxLat: maxLat, maxLon: wrapEast)
            }
        }
        return BoundingBox(minLat: minLat, minLon: plainWest, maxLat: maxLat, maxLon: plainEast)
    }
}

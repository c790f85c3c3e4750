/// A polygon with holes, as GeoJSON defines it: the first ring is the outer boundary, the
/// others are holes, and edges are straight lines in longitude/latitude (RFC 7946 §3.1.6
/// treats coordinates as planar).
///
/// Containment is the even–odd rule over all rings, so a point in a hole is outside, and
/// ring orientation does not matter (RFC 7946 asks writers for counter-clockwise outer
/// rings but readers not to reject others). A point exactly on an edge or vertex is on
/// the boundary and not contained, as in shapely (`PolygonIndex`, exact).
/// Polygons do not wrap across ±180°: as RFC 7946 §3.1.9 prescribes, a shape crossing the
/// antimeridian is sent as a MultiPolygon split there.
public struct Polygon: Sendable, Hashable {
    /// The rings as given: outer first, then holes; each closed (first == last).
    public let rings: [[Coordinate]]
    /// The box of the outer ring, which holds the whole polygon.
    public let boundingBox: BoundingBox
    /// The grid that answers containment and distance; nil for a part of a MultiPolygon,
    /// which indexes all its parts' rings together.
    let index: PolygonIndex?

    /// Checks and stores the rings. Throws for: no rings, a ring with fewer than 4
    /// positions, a ring whose last position differs from its first, NaN or infinite
    /// values, latitudes outside ±90 or longitudes outside ±180, a ring enclosing no area,
    /// and a ring whose edges cross each other.
    public init(rings: [[Coordinate]]) throws(ShapeError) {
        try self.init(rings: rings, indexed: true)
    }

    init(rings: [[Coordinate]], indexed: Bool) throws(ShapeError) {
        guard !rings.isEmpty else { throw ShapeError("polygon has no rings") }
        for (index, ring) in rings.enumerated() {
            try PolygonValidation.check(ring: ring, named: index == 0 ? "outer ring" : "hole \(index)")
        }
        self.rings = rings
        let outer = rings[0]
        self.boundingBox = BoundingBox(
            minLat: outer.map(\.lat).min() ?? 0, minLon: outer.map(\.lon).min() ?? 0,
            maxLat: outer.map(\.lat).max() ?? 0, maxLon: outer.map(\.lon).max() ?? 0
        )
        self.index = indexed ? PolygonIndex(rings: rings) : nil
    }

    private var searchable: PolygonIndex { index ?? PolygonIndex(rings: rings) }

    /// True when `p` is inside the outer ring and in no hole, off the boundary.
    public func contains(_ p: Coordinate) -> Bool {
        guard boundingBox.contains(p) else { return false }
        return searchable.contains(p)
    }

    /// Interior, boundary or exterior, exactly.
    public func locate(_ p: Coordinate) -> PointLocation { searchable.locate(p) }

    /// Distance in metres from `p` to the nearest edge of any ring (unsigned).
    ///
    /// Edges lying on ±180° are skipped: RFC 7946 splits shapes there, so such an edge is a
    /// seam inside the region rather than its boundary. Edges are measured in a `LocalTangentPlane` centred on `p`, so the result carries
    /// that frame's error and treats each lon/lat edge as straight in it: within 0.1% + 1 cm
    /// of a geodesic search for shapes a few kilometres across (see `PolygonTests`). It
    /// serves hysteresis margins, not surveying.
    public func distanceToBoundaryMeters(_ p: Coordinate) -> Double {
        searchable.distanceToBoundaryMeters(p)
    }

    /// Signed metres (negative inside), exact below `need` (see `PolygonIndex`).
    public func signedDistanceMeters(_ p: Coordinate, exactWithin need: Double) -> Double {
        searchable.signedDistanceMeters(p, exactWithin: need)
    }

    public static func == (lhs: Polygon, rhs: Polygon) -> Bool { lhs.rings == rhs.rings }
    public func hash(into hasher: inout Hasher) { hasher.combine(rings) }
}

/// Small planar helpers shared by the polygon code.
enum PlanarGeometry {
    /// Distance from (0, 0) to the segment a–b.
    static func distanceFromOrigin(toSegmentFrom a: (east: Double, north: Double), to b: (east: Double, north: Double)) -> Double {
        let dx = b.east - a.east, dy = b.north - a.north
        let lengthSq = dx * dx + dy * dy
        var t = lengthSq > 0 ? -(a.east * dx + a.north * dy) / lengthSq : 0
        t = min(1, max(0, t))
        let x = a.east + t * dx, y = a.north + t * dy
        return (x * x + y * y).squareRoot()
    }

    /// Twice the signed area of a closed ring in degrees² (shoelace formula).
    static func doubledArea(_ ring: [Coordinate]) -> Double {
        var sum = 0.0
        for i in 0..<(ring.count - 1) {
            sum += ring[i].lon * ring[i + 1].lat - ring[i + 1].lon * ring[i].lat
        }
        return sum
    }

    /// Orientation of c relative to the line a→b: > 0 left, < 0 right, 0 collinear.
    static func cross(_ a: Coordinate, _ b: Coordinate, _ c: Coordinate) -> Double {
        (b.lon - a.lon) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lon - a.lon)
    }

    /// True when the closed segments p1–p2 and q1–q2 share a point.
    static func segmentsIntersect(_ p1: Coordinate, _ p2: Coordinate, _ q1: Coordinate, _ q2: Coordinate) -> Bool {
        let d1 = cross(q1, q2, p1), d2 = cross(q1, q2, p2)
        let d3 = cross(p1, p2, q1), d4 = cross(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        func onSegment(_ a: Coordinate, _ b: Coordinate, _ c: Coordinate) -> Bool {
            min(a.lon, b.lon) <= c.lon && c.lon <= max(a.lon, b.lon) && min(a.lat, b.lat) <= c.lat && c.lat <= max(a.lat, b.lat)
        }
        if d1 == 0 && onSegment(q1, q2, p1) { return true }
        if d2 == 0 && onSegment(q1, q2, p2) { return true }
        if d3 == 0 && onSegment(p1, p2, q1) { return true }
        if d4 == 0 && onSegment(p1, p2, q2) { return true }
        return false
    }
}

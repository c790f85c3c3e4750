/// Several polygons monitored as one region (GeoJSON `MultiPolygon`), e.g. a campus
/// with separate sites, or a shape split at the antimeridian as RFC 7946 §3.1.9 asks.
public struct MultiPolygon: Sendable, Hashable {
    public let polygons: [Polygon]
    /// The union of the parts' boxes; wraps across ±180° when the parts sit on both
    /// sides of the antimeridian and are closer that way round.
    public let boundingBox: BoundingBox

    public init(polygons: [Polygon]) {
        self.polygons = polygons
        self.boundingBox = MultiPolygon.enclosingBox(polygons.map(\.boundingBox))
    }

    /// Parses and validates each part, for input from clients.
    public static func validated(polygons rings: [[[Coordinate]]]) throws(ShapeError) -> MultiPolygon {
        guard !rings.isEmpty else { throw ShapeError("multipolygon has no polygons") }
        var parts: [Polygon] = []
        for (index, polygonRings) in rings.enumerated() {
            do {
                parts.append(try Polygon(rings: polygonRings))
            } catch {
                throw ShapeError("polygon \(index): \(error.message)")
            }
        }
        return MultiPolygon(polygons: parts)
    }

    /// True when any part contains `p`.
    public func contains(_ p: Coordinate) -> Bool {
        guard boundingBox.contains(p) else { return false }
        return polygons.contains { $0.contains(p) }
    }

    /// Distance in metres from `p` to the nearest edge of any part (unsigned).
    public func distanceToBoundaryMeters(_ p: Coordinate) -> Double {
        polygons.reduce(Double.infinity) { min($0, $1.distanceToBoundaryMeters(p)) }
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

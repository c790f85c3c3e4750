/// A latitude/longitude box, used to discard far shapes cheaply and to key the spatial index.
///
/// Antimeridian: as RFC 7946 §5.2 allows for `bbox`, a box whose `minLon` is greater than its
/// `maxLon` crosses ±180° and covers `minLon…180` plus `−180…maxLon`. Boxes around a
/// pole span every longitude (`minLon = −180`, `maxLon = 180`) and reach ±90° latitude.
public struct BoundingBox: Sendable, Equatable, Hashable {
    public var minLat: Double
    public var minLon: Double
    public var maxLat: Double
    public var maxLon: Double

    public init(minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        self.minLat = minLat
        self.minLon = minLon
        self.maxLat = maxLat
        self.maxLon = maxLon
    }

    /// The whole globe.
    public static let world = BoundingBox(minLat: -90, minLon: -180, maxLat: 90, maxLon: 180)

    /// True when the box wraps across the antimeridian (`minLon > maxLon`).
    public var crossesAntimeridian: Bool { minLon > maxLon }

    /// True when `p` lies inside or on the edge of the box.
    public func contains(_ p: Coordinate) -> Bool {
        guard p.lat >= minLat && p.lat <= maxLat else { return false }
        if minLon <= maxLon {
            return p.lon >= minLon && p.lon <= maxLon
        }
        return p.lon >= minLon || p.lon <= maxLon
    }

    /// True when the two boxes share at least one point (edges count).
    public func intersects(_ other: BoundingBox) -> Bool {
        guard minLat <= other.maxLat && other.minLat <= maxLat else { return false }
        for mine in longitudeRanges {
            for theirs in other.longitudeRanges where mine.lowerBound <= theirs.upperBound && theirs.lowerBound <= mine.upperBound {
                return true
            }
        }
        return false
    }

    /// The longitude intervals the box covers, split in two where it crosses ±180°.
    public var longitudeRanges: [ClosedRange<Double>] {
        if minLon <= maxLon { return [minLon...maxLon] }
        return [minLon...180, -180...maxLon]
    }

    /// The smallest box holding both (longitudes are joined without wrapping unless
    /// either box already wraps, in which case the result is conservative).
    public func union(_ other: BoundingBox) -> BoundingBox {
        let lat = (min(minLat, other.minLat), max(maxLat, other.maxLat))
        if !crossesAntimeridian && !other.crossesAntimeridian {
            return BoundingBox(minLat: lat.0, minLon: min(minLon, other.minLon), maxLat: lat.1, maxLon: max(maxLon, other.maxLon))
        }
        return BoundingBox(minLat: lat.0, minLon: -180, maxLat: lat.1, maxLon: 180)
    }
}

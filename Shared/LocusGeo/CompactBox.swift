/// A bounding box in single precision, rounded outward, for the spatial index's cells: a
/// query scans every box of a cell, so halving their size halves the cache lines it reads,
/// and a box that only grows (by under 2 m at ±180°) still never misses a candidate.
///
/// A point inside the original box is inside this one when its coordinates are rounded to
/// `Float` too: rounding is monotonic, so `a ≤ p ≤ b` gives `round(a) ≤ round(p) ≤ round(b)`,
/// and the stored edges are at or beyond `round` of the original ones.
@usableFromInline
struct CompactBox: Sendable {
    @usableFromInline let minLat: Float
    @usableFromInline let minLon: Float
    @usableFromInline let maxLat: Float
    @usableFromInline let maxLon: Float

    init(_ box: BoundingBox) {
        minLat = Self.down(box.minLat)
        maxLat = Self.up(box.maxLat)
        let west = Self.down(box.minLon), east = Self.up(box.maxLon)
        if box.crossesAntimeridian && west <= east {
            // Widening turned a box that wraps nearly all the way round into one that does
            // not wrap: every longitude is the safe answer.
            minLon = -180
            maxLon = 180
        } else {
            minLon = west
            maxLon = east
        }
    }

    static func down(_ value: Double) -> Float {
        let rounded = Float(value)
        return Double(rounded) > value ? rounded.nextDown : rounded
    }

    static func up(_ value: Double) -> Float {
        let rounded = Float(value)
        return Double(rounded) < value ? rounded.nextUp : rounded
    }

    /// The same box in double precision (exact: every Float is a Double).
    var box: BoundingBox {
        BoundingBox(minLat: Double(minLat), minLon: Double(minLon), maxLat: Double(maxLat), maxLon: Double(maxLon))
    }

    /// `BoundingBox.containsWithoutBranches` for a point already rounded to Float.
    @inlinable @inline(__always)
    func contains(lat: Float, lon: Float) -> Bool {
        let latOK = UInt8(lat >= minLat ? 1 : 0) & UInt8(lat <= maxLat ? 1 : 0)
        let east = UInt8(lon >= minLon ? 1 : 0), west = UInt8(lon <= maxLon ? 1 : 0)
        let wraps = UInt8(minLon > maxLon ? 1 : 0)
        let lonOK = (east & west) | (wraps & (east | west))
        return latOK & lonOK != 0
    }
}

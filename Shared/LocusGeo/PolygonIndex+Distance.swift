import Foundation

/// Lower bounds of the local-tangent-plane distances `Polygon` measures edges with, from
/// degree gaps alone: the plane scales latitude by the meridional radius M ≥ a(1 − e²) and
/// longitude by N·cos φm ≥ a·cos φ at the more poleward of the two latitudes, so a gap of
/// g degrees is at least g times these (less a part in 10⁴ for rounding).
enum DistanceBounds {
    static let metersPerDegreeLatitude = SphereBound.radiusMeters * Double.pi / 180 * 0.9999

    static func metersPerDegreeLongitude(atLatitude degrees: Double) -> Double {
        max(0, WGS84.semiMajorAxisMeters * cos(min(abs(degrees), 90) * Double.pi / 180) * Double.pi / 180 * 0.9999)
    }

    /// Longitude gap from `x` to [low, high], the short way round the globe.
    @inline(__always)
    static func longitudeGap(_ x: Double, low: Double, high: Double) -> Double {
        let plain = max(0, low - x, x - high)
        guard plain > 180 - max(abs(low), abs(high)) else { return plain }
        return min(plain, x + 360 - high, low - x + 360)
    }

    /// Metres no point of the box [low…high] can be nearer `p` than.
    @inline(__always)
    static func meters(from p: Coordinate, lowX: Double, highX: Double, lowY: Double, highY: Double) -> Double {
        let gapX = longitudeGap(p.lon, low: lowX, high: highX)
        let gapY = max(0, lowY - p.lat, p.lat - highY)
        let east = gapX * metersPerDegreeLongitude(atLatitude: max(abs(p.lat), abs(lowY), abs(highY)))
        let north = gapY * metersPerDegreeLatitude
        return (east * east + north * north).squareRoot()
    }
}

extension PolygonIndex {
    /// Metres from the boundary, negative in the interior and positive outside (0 on the
    /// boundary), exact wherever its size is below `need`; elsewhere a value of the right
    /// sign whose size lies between `need` and the true distance. Deep inside or far
    /// outside that is a table lookup, where the full distance would search the edges.
    public func signedDistanceMeters(_ p: Coordinate, exactWithin need: Double) -> Double {
        signedDistanceMeters(p, located: locate(p), exactWithin: need)
    }

    /// `signedDistanceMeters(_:exactWithin:)` for a point already located.
    func signedDistanceMeters(_ p: Coordinate, located location: PointLocation, exactWithin need: Double) -> Double {
        if location == .boundary { return 0 }
        let sign: Double = location == .interior ? -1 : 1
        let (column, row) = cell(x: p.lon, y: p.lat)
        let known = clearance.isEmpty ? 0 : Double(clearance[row * columns + column])
        let outsideBox = DistanceBounds.meters(from: p, lowX: minX, highX: maxX, lowY: minY, highY: maxY)
        let bound = max(known, outsideBox)
        if bound >= need { return sign * max(bound, .leastNormalMagnitude) }
        return sign * max(distanceToBoundaryMeters(p, exactWithin: need), .leastNormalMagnitude)
    }

    /// Unsigned distance to the nearest edge (seams on ±180° excluded), exact below `need`
    /// and otherwise between `need` and the true value: cells are searched in rings
    /// around the point's cell until no nearer edge can remain.
    public func distanceToBoundaryMeters(_ p: Coordinate, exactWithin need: Double = .infinity) -> Double {
        let plane = LocalTangentPlane(origin: p)
        if cellStart.isEmpty { return bruteForceDistance(p, plane: plane, need: need) }
        let (column, row) = cell(x: p.lon, y: p.lat)
        var best = Double.infinity
        var skipped = Double.infinity  // the nearest any pruned edge or cell can be
        var ring = 0
        while true {
            let limit = min(best, need)
            var ringBound = ringLowerBound(ring, p: p, row: row)
            if wrapsAntimeridian {
                // The grid's far end may lie just across ±180°: this bound covers it.
                let across = (180 - abs(p.lon)) * DistanceBounds.metersPerDegreeLongitude(atLatitude: max(abs(minY), abs(maxY), abs(p.lat)))
                if across < ringBound {
                    ringBound = across
                    if across < limit { return bruteForceDistance(p, plane: plane, need: need) }
                }
            }
            if ringBound >= limit { return best < need ? best : min(best, ringBound, skipped) }
            let firstRow = row - ring, lastRow = row + ring, firstColumn = column - ring, lastColumn = column + ring
            if firstRow < 0 && lastRow >= rows && firstColumn < 0 && lastColumn >= columns && ring > 0 {
                return best < need ? best : min(best, skipped)  // every cell searched
            }
            for r in max(firstRow, 0)...min(lastRow, rows - 1) {
                let onEdgeRow = r == firstRow || r == lastRow
                var c = max(firstColumn, 0)
                while c <= min(lastColumn, columns - 1) {
                    defer { c = onEdgeRow || c >= lastColumn ? c + 1 : lastColumn }
                    let cellNumber = r * columns + c
                    let start = Int(cellStart[cellNumber]), end = Int(cellStart[cellNumber + 1])
                    guard start < end else { continue }
                    let west = minX + Double(c) * cellWidth, south = minY + Double(r) * cellHeight
                    let cellBound = DistanceBounds.meters(from: p, lowX: west, highX: west + cellWidth, lowY: south, highY: south + cellHeight)
                    if cellBound >= min(best, need) {
                        skipped = min(skipped, cellBound)
                        continue
                    }
                    // An edge filed in several cells is measured again: cheaper than remembering it.
                    for slot in start..<end {
                        measure(edges[Int(cellEdges[slot])], from: p, plane: plane, best: &best, skipped: &skipped, need: need)
                    }
                }
            }
            ring += 1
        }
    }

    /// Lower bound on the distance from `p` (in the cell at `row`) to any cell `ring` or
    /// more cells away: `ring − 1` whole cells in latitude, or in longitude within rows
    /// that near.
    private func ringLowerBound(_ ring: Int, p: Coordinate, row: Int) -> Double {
        guard ring > 1 else { return 0 }
        let cells = Double(ring - 1)
        let south = minY + Double(max(row - ring + 1, 0)) * cellHeight
        let north = minY + Double(min(row + ring, rows)) * cellHeight
        let poleward = max(abs(south), abs(north), abs(p.lat))
        return cells * min(cellHeight * DistanceBounds.metersPerDegreeLatitude,
                           cellWidth * DistanceBounds.metersPerDegreeLongitude(atLatitude: poleward))
    }

    @inline(__always)
    private func measure(_ e: PolygonEdge, from p: Coordinate, plane: LocalTangentPlane, best: inout Double, skipped: inout Double,
                         need: Double) {
        let bound = DistanceBounds.meters(from: p, lowX: e.minX, highX: e.maxX, lowY: e.minY, highY: e.maxY)
        if bound >= min(best, need) {
            skipped = min(skipped, bound)
            return
        }
        let a = plane.project(Coordinate(lat: e.y1, lon: e.x1))
        let b = plane.project(Coordinate(lat: e.y2, lon: e.x2))
        best = min(best, PlanarGeometry.distanceFromOrigin(toSegmentFrom: a, to: b))
    }

    /// Every edge: for a small polygon, or a point the grid's rings cannot bound (near ±180°
    /// of a shape on both sides).
    private func bruteForceDistance(_ p: Coordinate, plane: LocalTangentPlane, need: Double) -> Double {
        var best = Double.infinity, skipped = Double.infinity
        for e in edges where !(e.x1 == e.x2 && abs(e.x1) == 180) {
            measure(e, from: p, plane: plane, best: &best, skipped: &skipped, need: need)
        }
        return best < need ? best : min(best, skipped)
    }
}

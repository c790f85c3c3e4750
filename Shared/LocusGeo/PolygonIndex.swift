/// Where a point lies relative to an area, as GEOS and shapely define it: a point on an
/// edge or a vertex is on the `boundary`, which an area does not `contain`.
public enum PointLocation: Sendable, Equatable {
    case interior, boundary, exterior
}

/// One edge of a ring, in the ring's direction (the direction decides shared vertices).
struct PolygonEdge: Sendable {
    var x1: Double, y1: Double, x2: Double, y2: Double

    var minX: Double { min(x1, x2) }
    var maxX: Double { max(x1, x2) }
    var minY: Double { min(y1, y2) }
    var maxY: Double { max(y1, y2) }
}

/// Point-in-polygon at the speed of a table lookup: a grid over the area's box in which
/// every cell that no edge touches is wholly inside or wholly outside and answers at
/// once; a point in a cell an edge crosses counts ray crossings over its grid row's edges
/// only (every edge that can decide the answer spans the point's latitude, so lies in
/// that row), scanning towards whichever end of the row holds fewer of them.
///
/// The count follows GEOS's ray-crossing rules (an upward edge includes its start vertex,
/// a downward edge its end vertex, horizontal edges never cross, a point on an edge or
/// vertex is `boundary`) with an exact orientation test, so verdicts are shapely's
/// prepared `contains` ones, on edges and vertices too. All rings of all parts are
/// counted together (even–odd): a hole or a part needs no special case.
///
/// Each empty cell also keeps a lower bound of its points' distance to the boundary, so a
/// caller that only needs to know whether a point is more than a margin inside or outside
/// (the geofence's hysteresis) gets a distance only near the boundary
/// (`signedDistanceMeters(_:exactWithin:)`).
public final class PolygonIndex: @unchecked Sendable {
    let minX: Double, minY: Double, maxX: Double, maxY: Double
    let columns: Int, rows: Int
    let cellWidth: Double, cellHeight: Double
    let inverseCellWidth: Double, inverseCellHeight: Double
    /// Per cell (row-major): `Kind` raw values, two bits each, four cells a byte (a city of
    /// small polygons keeps its grids in a quarter of the cache); owned, immutable after
    /// init, at a fixed address so a `PolygonProbe` can read it without touching this object.
    let kinds: UnsafeMutablePointer<UInt8>
    public let cellCount: Int
    /// Per cell: metres that every point of the cell is at least from the boundary (0 for
    /// cells an edge touches); empty for a small polygon, whose distance searches all edges.
    let clearance: [Float]
    /// Per cell: its edges (numbers into `edges`) at `cellEdges[cellStart[c]..<cellStart[c+1]]`,
    /// for distances; edges on ±180° (a seam where a shape was split) are left out. Empty
    /// for a small polygon.
    let cellStart: [Int32]
    let cellEdges: [Int32]
    /// Per row: the edges spanning its latitudes at `rowStart[r]..<rowStart[r+1]` of
    /// `rightward` (by largest longitude, descending) and `leftward` (by smallest, ascending).
    /// Owned and immutable like `kinds`: a scan reads them without reference counting.
    let rowStart: UnsafeMutablePointer<Int32>
    let rightward: UnsafeMutablePointer<PolygonEdge>
    let leftward: UnsafeMutablePointer<PolygonEdge>
    /// Every edge once.
    let edges: [PolygonEdge]
    /// The box reaches ±180° on both sides, so a distance may be shorter across the antimeridian.
    let wrapsAntimeridian: Bool

    enum Kind: UInt8 {
        case outside = 0, inside = 1, scanRight = 2, scanLeft = 3
    }

    /// Indexes the rings (each closed: first position == last; any orientation). Rings
    /// of several polygons may be given together (a MultiPolygon): parts and holes are
    /// told apart by the even–odd rule.
    public convenience init(rings: [[Coordinate]]) {
        self.init(PolygonIndexBuilder(rings: rings))
    }

    init(_ built: PolygonIndexBuilder) {
        minX = built.minX
        minY = built.minY
        maxX = built.maxX
        maxY = built.maxY
        columns = built.columns
        rows = built.rows
        cellWidth = built.cellWidth
        cellHeight = built.cellHeight
        inverseCellWidth = 1 / built.cellWidth
        inverseCellHeight = 1 / built.cellHeight
        cellCount = built.kinds.count
        let bytes = (built.kinds.count + 3) / 4
        kinds = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
        kinds.initialize(repeating: 0, count: bytes)
        for (cell, kind) in built.kinds.enumerated() { kinds[cell >> 2] |= kind << UInt8((cell & 3) * 2) }
        clearance = built.clearance
        cellStart = built.cellStart
        cellEdges = built.cellEdges
        rowStart = Self.copy(built.rowStart)
        rightward = Self.copy(built.rightward)
        leftward = Self.copy(built.leftward)
        edges = built.edges
        wrapsAntimeridian = built.minX <= -179 && built.maxX >= 179
    }

    deinit {
        kinds.deallocate()
        rowStart.deallocate()
        rightward.deallocate()
        leftward.deallocate()
    }

    private static func copy<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
        let storage = UnsafeMutablePointer<T>.allocate(capacity: max(values.count, 1))
        storage.initialize(from: values, count: values.count)
        return storage
    }

    /// The few fields containment reads first, as a value for a dense per-region array.
    public var probe: PolygonProbe { PolygonProbe(self) }

    /// True when `p` is in the interior (not on the boundary), as shapely's `contains_xy`.
    @inline(__always)
    public func contains(_ p: Coordinate) -> Bool { locate(p) == .interior }

    /// Interior, boundary or exterior, exactly.
    public func locate(_ p: Coordinate) -> PointLocation {
        let x = p.lon, y = p.lat
        guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return .exterior }
        let (column, row) = cell(x: x, y: y)
        return answer(kind: Self.kind(kinds, row &* columns &+ column), row: row, x: x, y: y)
    }

    /// The two-bit kind of `cell` in packed storage.
    @inline(__always)
    static func kind(_ packed: UnsafePointer<UInt8>, _ cell: Int) -> UInt8 {
        (packed[cell &>> 2] &>> UInt8((cell & 3) &* 2)) & 3
    }

    @inline(__always)
    func answer(kind: UInt8, row: Int, x: Double, y: Double) -> PointLocation {
        switch kind {
        case Kind.outside.rawValue: return .exterior
        case Kind.inside.rawValue: return .interior
        case Kind.scanRight.rawValue: return scanRight(row: row, x: x, y: y)
        default: return scanLeft(row: row, x: x, y: y)
        }
    }

    /// The grid cell holding (x, y), clamped into the grid.
    @inline(__always)
    func cell(x: Double, y: Double) -> (column: Int, row: Int) {
        // Clamped as Doubles (NaN to 0) before the conversion: a degenerate box's inverse cell size can be huge.
        let column = Int(min(max((x - minX) * inverseCellWidth, 0), Double(columns - 1)).nanAsZero)
        let row = Int(min(max((y - minY) * inverseCellHeight, 0), Double(rows - 1)).nanAsZero)
        return (column, row)
    }

    /// Counts crossings of the ray from (x, y) towards +∞ longitude over the row's edges.
    private func scanRight(row: Int, x: Double, y: Double) -> PointLocation {
        var crossings = 0
        for index in Int(rowStart[row])..<Int(rowStart[row + 1]) {
            let e = rightward[index]
            if e.x1 < x && e.x2 < x { break }  // sorted by largest longitude: the rest lie left too
            switch Self.examine(e, x: x, y: y) {
            case .boundary: return .boundary
            case .crossing(let side): if side > 0 { crossings += 1 }
            case .none: continue
            }
        }
        return crossings & 1 == 1 ? .interior : .exterior
    }

    /// Counts crossings of the ray from (x, y) towards −∞ longitude: the same parity for
    /// a point off the boundary (every ring crosses a parallel an even number of times).
    private func scanLeft(row: Int, x: Double, y: Double) -> PointLocation {
        var crossings = 0
        for index in Int(rowStart[row])..<Int(rowStart[row + 1]) {
            let e = leftward[index]
            if e.x1 > x && e.x2 > x { break }  // sorted by smallest longitude: the rest lie right too
            switch Self.examine(e, x: x, y: y) {
            case .boundary: return .boundary
            case .crossing(let side): if side < 0 { crossings += 1 }
            case .none: continue
            }
        }
        return crossings & 1 == 1 ? .interior : .exterior
    }

    enum Examined {
        case none, boundary
        /// The edge crosses the point's parallel to its east (+1) or west (−1).
        case crossing(Int)
    }

    /// GEOS's ray-crossing rules for one edge.
    @inline(__always)
    static func examine(_ e: PolygonEdge, x: Double, y: Double) -> Examined {
        if x == e.x2 && y == e.y2 { return .boundary }  // a vertex (each is some edge's end)
        if e.y1 == y && e.y2 == y {
            // Horizontal: never crosses, but the point may lie on it.
            return x >= min(e.x1, e.x2) && x <= max(e.x1, e.x2) ? .boundary : .none
        }
        // Upward edges include their start and exclude their end; downward the reverse.
        guard (e.y1 > y && e.y2 <= y) || (e.y2 > y && e.y1 <= y) else { return .none }
        var side = ExactOrientation.sign(ax: e.x1, ay: e.y1, bx: e.x2, by: e.y2, cx: x, cy: y)
        if side == 0 { return .boundary }
        if e.y2 < e.y1 { side = -side }
        return .crossing(side)
    }
}

/// A polygon's grid header by value: box, cell scale and the address of its cell kinds,
/// with an unmanaged reference to the rest. Kept in a dense array (one per region), a
/// point in an empty cell is answered from this record and one byte of the kinds, with
/// no reference counting; only a touched cell reaches the index object. Valid while the
/// `PolygonIndex` it came from is alive (its owner keeps it).
public struct PolygonProbe: @unchecked Sendable {
    let minX: Double, minY: Double, maxX: Double, maxY: Double
    let inverseCellWidth: Double, inverseCellHeight: Double
    let columns: Int32, rows: Int32
    let kinds: UnsafePointer<UInt8>
    let index: Unmanaged<PolygonIndex>

    init(_ index: PolygonIndex) {
        minX = index.minX
        minY = index.minY
        maxX = index.maxX
        maxY = index.maxY
        inverseCellWidth = index.inverseCellWidth
        inverseCellHeight = index.inverseCellHeight
        columns = Int32(index.columns)
        rows = Int32(index.rows)
        kinds = UnsafePointer(index.kinds)
        self.index = Unmanaged.passUnretained(index)
    }

    /// `PolygonIndex.locate`.
    @inline(__always)
    public func locate(_ p: Coordinate) -> PointLocation {
        let x = p.lon, y = p.lat
        guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return .exterior }
        let column = Int(min(max((x - minX) * inverseCellWidth, 0), Double(Int(columns) - 1)).nanAsZero)
        let row = Int(min(max((y - minY) * inverseCellHeight, 0), Double(Int(rows) - 1)).nanAsZero)
        let kind = PolygonIndex.kind(kinds, row &* Int(columns) &+ column)
        if kind == PolygonIndex.Kind.outside.rawValue { return .exterior }
        if kind == PolygonIndex.Kind.inside.rawValue { return .interior }
        return index._withUnsafeGuaranteedRef { $0.answer(kind: kind, row: row, x: x, y: y) }
    }

    /// True in the interior (off the boundary).
    @inline(__always)
    public func contains(_ p: Coordinate) -> Bool { locate(p) == .interior }

    /// `PolygonIndex.signedDistanceMeters(_:exactWithin:)`.
    public func signedDistanceMeters(_ p: Coordinate, exactWithin need: Double) -> Double {
        let location = locate(p)
        return index._withUnsafeGuaranteedRef { $0.signedDistanceMeters(p, located: location, exactWithin: need) }
    }
}

extension Double {
    /// 0 for NaN, the value otherwise: what a cell index needs before `Int(_:)`.
    @inline(__always) var nanAsZero: Double { isNaN ? 0 : self }
}

/// Finds which of many boxes contain a point, for region monitoring at fleet scale.
///
/// A hierarchical uniform grid: level k has square cells of `baseCellDegrees · 4^k`
/// degrees, and each box is filed in the finest level whose cells are at least half as
/// big as the box's larger side, so it touches at most 3 × 3 cells. A query looks up one
/// cell in each level that holds anything, so its cost depends on how many boxes are near
/// the point, never on how many are elsewhere. Boxes crossing the antimeridian are filed
/// under both longitude ranges; boxes around a pole span all longitudes and land in a
/// coarse level.
///
/// Levels step by 4 rather than 2 because at fleet scale every level visited is a cache
/// miss, which costs more than the few extra boxes a coarser cell holds. Each cell keeps
/// its entries (a copy of the box and the id) in one contiguous array, reached through
/// `CellTable`, so a query reads nothing else and allocates nothing.
public struct SpatialIndex<ID: Hashable & Sendable>: Sendable {
    /// Cell size of the finest level in degrees (2^-10°, about 110 m of latitude).
    public static var baseCellDegrees: Double { 1.0 / 1024 }

    /// Each stored id's box and grid level, to find its cells again on removal.
    private var filed: [ID: (box: BoundingBox, level: Int)] = [:]
    /// Per cell: the boxes filed there, contiguous so a query reads them in one sweep.
    @usableFromInline var cells = CellTable<ID>()
    private var boxesPerLevel = [Int](repeating: 0, count: GridLevels.count)
    /// Levels holding at least one box, finest first: the only ones a query visits.
    @usableFromInline var activeLevels: [Int] = []

    public init() {}

    /// How many boxes are stored.
    public var count: Int { filed.count }

    /// Files `id` under `box`; an id already present is moved to the new box.
    public mutating func insert(_ id: ID, box: BoundingBox) {
        remove(id)
        let level = GridLevels.level(for: box)
        filed[id] = (box, level)
        for key in GridLevels.cellKeys(for: box, level: level) {
            cells.insert(CellEntry(box: box, id: id), into: key)
        }
        boxesPerLevel[level] += 1
        if boxesPerLevel[level] == 1 { refreshActiveLevels() }
    }

    /// Forgets `id`; nothing happens if it is absent.
    public mutating func remove(_ id: ID) {
        guard let (box, level) = filed.removeValue(forKey: id) else { return }
        for key in GridLevels.cellKeys(for: box, level: level) {
            cells.remove(id, from: key)
        }
        boxesPerLevel[level] -= 1
        if boxesPerLevel[level] == 0 { refreshActiveLevels() }
    }

    /// The box filed for `id`, if any.
    public func box(for id: ID) -> BoundingBox? {
        filed[id]?.box
    }

    /// Ids whose box contains `p`: a superset of the shapes containing `p`, none missed.
    @inlinable
    public func candidates(containing p: Coordinate) -> [ID] {
        var result: [ID] = []
        candidates(containing: p, into: &result)
        return result
    }

    /// Appends to `result` the ids whose box contains `p`, without allocating when
    /// `result` has capacity (clear and reuse it across queries on hot paths).
    @inlinable
    public func candidates(containing p: Coordinate, into result: inout [ID]) {
        forEachCandidate(containing: p) { result.append($0) }
    }

    /// Calls `body` with each id whose box contains `p` (each once), with no array in
    /// between: the cheapest form for a hot loop that tests each candidate's shape.
    @inlinable @inline(__always)
    public func forEachCandidate(containing p: Coordinate, _ body: (ID) -> Void) {
        let lat = Float(p.lat), lon = Float(p.lon)
        for level in activeLevels {
            cells.withEntries(GridLevels.cellKey(level: level, lat: p.lat, lon: p.lon)) { entries in
                for entry in entries {
                    if entry.box.minLat > lat { break }  // entries are sorted by southern edge
                    if entry.box.contains(lat: lat, lon: lon) { body(entry.id) }
                }
            }
        }
    }

    /// Appends to `result` the ids whose box comes within `withinMeters` of `p` (each id
    /// once): the shapes a fix with that uncertainty might touch, for hysteresis margins.
    public func candidates(near p: Coordinate, withinMeters: Double, into result: inout [ID]) {
        let query = BoundingBox(minLat: p.lat, minLon: p.lon, maxLat: p.lat, maxLon: p.lon).expanded(byMeters: withinMeters)
        var seen = Set<ID>()
        func visit(_ id: ID, _ box: BoundingBox) {
            guard box.intersects(query), seen.insert(id).inserted else { return }
            result.append(id)
        }
        for level in activeLevels {
            let ranges = GridLevels.cellRanges(for: query, level: level)
            let cellCount = ranges.reduce(0) { $0 + $1.x.count * $1.y.count }
            if cellCount > count {
                // Scanning every box of the level is cheaper than visiting that many cells.
                for (id, entry) in filed where entry.level == level { visit(id, entry.box) }
                continue
            }
            for range in ranges {
                for iy in range.y {
                    for ix in range.x {
                        cells.withEntries(GridLevels.pack(level: level, ix: ix, iy: iy)) { entries in
                            for entry in entries { visit(entry.id, entry.box.box) }
                        }
                    }
                }
            }
        }
    }

    private mutating func refreshActiveLevels() {
        activeLevels = (0..<GridLevels.count).filter { boxesPerLevel[$0] > 0 }
    }
}

/// The geometry of the grid levels: cell sizes, which level a box belongs to, cell keys.
@usableFromInline
enum GridLevels {
    /// Levels up to cells of 1024°, which hold any box in a single cell.
    static let count = 11
    /// A box is filed where a cell is at least this fraction of its larger side.
    static let cellToBoxRatio = 0.5

    static func cellDegrees(level: Int) -> Double {
        SpatialIndex<Int>.baseCellDegrees * Double(1 &<< (2 * level))
    }

    /// Cells per degree at each level (exact powers of two, so the multiplication is exact).
    @usableFromInline static let inverseCell: [Double] = (0..<count).map { 1 / cellDegrees(level: $0) }
    @usableFromInline static let columns: [Int] = (0..<count).map { Int((360 / cellDegrees(level: $0)).rounded(.up)) }
    @usableFromInline static let rows: [Int] = (0..<count).map { Int((180 / cellDegrees(level: $0)).rounded(.up)) }

    static func level(for box: BoundingBox) -> Int {
        let latSpan = box.maxLat - box.minLat
        let lonSpan = box.crossesAntimeridian ? box.maxLon + 360 - box.minLon : box.maxLon - box.minLon
        let span = max(latSpan, lonSpan) * cellToBoxRatio
        var level = 0
        while level < count - 1 && cellDegrees(level: level) < span { level += 1 }
        return level
    }

    @inlinable @inline(__always)
    static func column(_ lon: Double, level: Int) -> Int {
        // lon + 180 ≥ 0, so truncation is the floor; clamp +180 and stray values.
        let index = Int((lon + 180) * inverseCell[level])
        return min(max(index, 0), columns[level] - 1)
    }

    @inlinable @inline(__always)
    static func row(_ lat: Double, level: Int) -> Int {
        let index = Int((lat + 90) * inverseCell[level])
        return min(max(index, 0), rows[level] - 1)
    }

    /// Wrapping shifts on purpose: with Swift 6.3.1 at -O, the smart-shift spelling
    /// `UInt64(level) << 58 | UInt64(iy) << 29 | UInt64(ix)` inside a nested loop dropped
    /// the high bits of every other key (reproduced in a ten-line program).
    @inlinable @inline(__always)
    static func pack(level: Int, ix: Int, iy: Int) -> UInt64 {
        (UInt64(truncatingIfNeeded: level) &<< 58) | (UInt64(truncatingIfNeeded: iy) &<< 29) | UInt64(truncatingIfNeeded: ix)
    }

    @inlinable @inline(__always)
    static func cellKey(level: Int, lat: Double, lon: Double) -> UInt64 {
        pack(level: level, ix: column(lon, level: level), iy: row(lat, level: level))
    }

    /// Cell index ranges covering the box at `level` (two when it crosses ±180°).
    static func cellRanges(for box: BoundingBox, level: Int) -> [(x: ClosedRange<Int>, y: ClosedRange<Int>)] {
        let y = row(box.minLat, level: level)...row(box.maxLat, level: level)
        return box.longitudeRanges.map { lon in
            (column(lon.lowerBound, level: level)...column(lon.upperBound, level: level), y)
        }
    }

    /// Every cell key the box touches at `level`, each once.
    static func cellKeys(for box: BoundingBox, level: Int) -> [UInt64] {
        var keys: [UInt64] = []
        for range in cellRanges(for: box, level: level) {
            for iy in range.y {
                for ix in range.x { keys.append(pack(level: level, ix: ix, iy: iy)) }
            }
        }
        if box.crossesAntimeridian {
            keys = Array(Set(keys))  // both halves can share a cell at coarse levels
        }
        return keys
    }
}

extension BoundingBox {
    /// `contains(p)` computed with bitwise rather than short-circuit logic: the index tests
    /// many boxes per query and most fail on some comparison, so unpredictable branches
    /// would cost more than doing every comparison.
    @inlinable @inline(__always)
    func containsWithoutBranches(_ p: Coordinate) -> Bool {
        let latOK = UInt8(p.lat >= minLat ? 1 : 0) & UInt8(p.lat <= maxLat ? 1 : 0)
        let east = UInt8(p.lon >= minLon ? 1 : 0), west = UInt8(p.lon <= maxLon ? 1 : 0)
        let wraps = UInt8(minLon > maxLon ? 1 : 0)
        let lonOK = (east & west) | (wraps & (east | west))
        return latOK & lonOK != 0
    }
}

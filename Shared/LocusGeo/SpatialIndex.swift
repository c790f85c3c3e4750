/// Finds which of many boxes contain a point, for region monitoring at fleet scale.
///
/// A hierarchical uniform grid: level k has square cells of `baseCellDegrees · 2^k`
/// degrees, and each box is filed in the finest level whose cells are at least as big as
/// the box, so it touches at most four cells. A query looks up one cell per level that
/// holds anything, so its cost depends on how many boxes are near the point, never on
/// how many are elsewhere. Boxes crossing the antimeridian are filed by both longitude
/// ranges; boxes around a pole span all longitudes and land in a coarse level.
public struct SpatialIndex<ID: Hashable & Sendable>: Sendable {
    /// Cell size of the finest level in degrees (2^-10°, about 110 m of latitude).
    public static var baseCellDegrees: Double { 1.0 / 1024 }
    /// Levels up to cells of 512°, which hold any box in a single cell.
    static var levelCount: Int { 20 }

    private var cells: [UInt64: [Int32]] = [:]
    private var boxes: [BoundingBox] = []
    private var ids: [ID?] = []
    private var levels: [UInt8] = []
    private var slotOf: [ID: Int32] = [:]
    private var freeSlots: [Int32] = []
    private var boxesPerLevel = [Int](repeating: 0, count: SpatialIndex.levelCount)
    /// Levels holding at least one box, finest first: the only ones a query visits.
    private var activeLevels: [Int] = []

    public init() {}

    /// How many boxes are stored.
    public var count: Int { slotOf.count }

    /// Files `id` under `box`; an id already present is moved to the new box.
    public mutating func insert(_ id: ID, box: BoundingBox) {
        remove(id)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            boxes[Int(slot)] = box
            ids[Int(slot)] = id
        } else {
            slot = Int32(boxes.count)
            boxes.append(box)
            ids.append(id)
            levels.append(0)
        }
        let level = SpatialIndex.level(for: box)
        levels[Int(slot)] = UInt8(level)
        slotOf[id] = slot
        for key in SpatialIndex.cellKeys(for: box, level: level) {
            cells[key, default: []].append(slot)
        }
        boxesPerLevel[level] += 1
        if boxesPerLevel[level] == 1 { refreshActiveLevels() }
    }

    /// Forgets `id`; nothing happens if it is absent.
    public mutating func remove(_ id: ID) {
        guard let slot = slotOf.removeValue(forKey: id) else { return }
        let level = Int(levels[Int(slot)])
        for key in SpatialIndex.cellKeys(for: boxes[Int(slot)], level: level) {
            guard var list = cells[key], let position = list.firstIndex(of: slot) else { continue }
            list.swapAt(position, list.count - 1)
            list.removeLast()
            cells[key] = list.isEmpty ? nil : list
        }
        ids[Int(slot)] = nil
        freeSlots.append(slot)
        boxesPerLevel[level] -= 1
        if boxesPerLevel[level] == 0 { refreshActiveLevels() }
    }

    /// The box filed for `id`, if any.
    public func box(for id: ID) -> BoundingBox? {
        slotOf[id].map { boxes[Int($0)] }
    }

    /// Ids whose box contains `p`: a superset of the shapes containing `p`, none missed.
    public func candidates(containing p: Coordinate) -> [ID] {
        var result: [ID] = []
        candidates(containing: p, into: &result)
        return result
    }

    /// Appends to `result` the ids whose box contains `p`, without allocating when
    /// `result` has capacity (clear and reuse it across queries on hot paths).
    public func candidates(containing p: Coordinate, into result: inout [ID]) {
        for level in activeLevels {
            guard let list = cells[SpatialIndex.cellKey(level: level, lat: p.lat, lon: p.lon)] else { continue }
            for slot in list where boxes[Int(slot)].contains(p) {
                if let id = ids[Int(slot)] { result.append(id) }
            }
        }
    }

    /// Appends to `result` the ids whose box comes within `withinMeters` of `p` (each id
    /// once): the shapes a fix with that uncertainty might touch, for hysteresis margins.
    public func candidates(near p: Coordinate, withinMeters: Double, into result: inout [ID]) {
        let query = BoundingBox(minLat: p.lat, minLon: p.lon, maxLat: p.lat, maxLon: p.lon).expanded(byMeters: withinMeters)
        var seen = Set<Int32>()
        func visit(_ slot: Int32) {
            guard boxes[Int(slot)].intersects(query), let id = ids[Int(slot)], seen.insert(slot).inserted else { return }
            result.append(id)
        }
        for level in activeLevels {
            let ranges = SpatialIndex.cellRanges(for: query, level: level)
            let cellCount = ranges.reduce(0) { $0 + $1.x.count * $1.y.count }
            if cellCount > count {
                // Scanning every box is cheaper than visiting that many empty cells.
                for (slot, slotLevel) in levels.enumerated() where Int(slotLevel) == level && ids[slot] != nil {
                    visit(Int32(slot))
                }
                continue
            }
            for range in ranges {
                for iy in range.y {
                    for ix in range.x {
                        for slot in cells[SpatialIndex.pack(level: level, ix: ix, iy: iy)] ?? [] { visit(slot) }
                    }
                }
            }
        }
    }

    // MARK: - Cells

    private mutating func refreshActiveLevels() {
        activeLevels = (0..<SpatialIndex.levelCount).filter { boxesPerLevel[$0] > 0 }
    }

    static func cellDegrees(level: Int) -> Double {
        baseCellDegrees * Double(1 << level)
    }

    /// The finest level whose cells are at least as large as the box on both axes.
    static func level(for box: BoundingBox) -> Int {
        let latSpan = box.maxLat - box.minLat
        let lonSpan = box.crossesAntimeridian ? box.maxLon + 360 - box.minLon : box.maxLon - box.minLon
        let span = max(latSpan, lonSpan)
        var level = 0
        while level < levelCount - 1 && cellDegrees(level: level) < span { level += 1 }
        return level
    }

    static func cellIndex(_ degreesFromOrigin: Double, cell: Double, cellsAcross: Int) -> Int {
        let index = Int((degreesFromOrigin / cell).rounded(.down))
        return min(max(index, 0), cellsAcross - 1)
    }

    static func cellsAcross(_ degrees: Double, level: Int) -> Int {
        Int((degrees / cellDegrees(level: level)).rounded(.up))
    }

    static func pack(level: Int, ix: Int, iy: Int) -> UInt64 {
        UInt64(level) << 58 | UInt64(iy) << 29 | UInt64(ix)
    }

    static func cellKey(level: Int, lat: Double, lon: Double) -> UInt64 {
        let cell = cellDegrees(level: level)
        let ix = cellIndex(lon + 180, cell: cell, cellsAcross: cellsAcross(360, level: level))
        let iy = cellIndex(lat + 90, cell: cell, cellsAcross: cellsAcross(180, level: level))
        return pack(level: level, ix: ix, iy: iy)
    }

    /// Cell index ranges covering the box at `level` (two when it crosses ±180°).
    static func cellRanges(for box: BoundingBox, level: Int) -> [(x: ClosedRange<Int>, y: ClosedRange<Int>)] {
        let cell = cellDegrees(level: level)
        let across = cellsAcross(360, level: level), down = cellsAcross(180, level: level)
        let y = cellIndex(box.minLat + 90, cell: cell, cellsAcross: down)...cellIndex(box.maxLat + 90, cell: cell, cellsAcross: down)
        return box.longitudeRanges.map { lon in
            (cellIndex(lon.lowerBound + 180, cell: cell, cellsAcross: across)...cellIndex(lon.upperBound + 180, cell: cell, cellsAcross: across), y)
        }
    }

    static func cellKeys(for box: BoundingBox, level: Int) -> Set<UInt64> {
        var keys = Set<UInt64>()
        for range in cellRanges(for: box, level: level) {
            for iy in range.y {
                for ix in range.x { keys.insert(pack(level: level, ix: ix, iy: iy)) }
            }
        }
        return keys
    }
}

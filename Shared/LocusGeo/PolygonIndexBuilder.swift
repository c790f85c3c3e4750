import Foundation

/// Builds a `PolygonIndex`: the grid, which cells each edge touches, each empty cell's
/// side (from one scan of its row's centre line) and its clearance to the nearest
/// touched cell.
struct PolygonIndexBuilder {
    var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
    var columns = 1, rows = 1
    var cellWidth = 1.0, cellHeight = 1.0
    var kinds: [UInt8] = []
    var clearance: [Float] = []
    var cellStart: [Int32] = []
    var cellEdges: [Int32] = []
    var rowStart: [Int32] = []
    var rightward: [PolygonEdge] = []
    var leftward: [PolygonEdge] = []
    var edges: [PolygonEdge] = []

    /// Cells per edge: enough that most cells are empty and a touched one holds a few edges.
    static let cellsPerEdge = 4
    /// Small polygons get a finer grid than their edges alone would ask for: a few hundred
    /// bytes buys most of their box answering without an edge.
    static let minimumCells = 1_024
    /// Up to this many edges a distance looks at every edge, and no per-cell edge lists
    /// or clearances are kept.
    static let smallEdges = 64
    static let maximumCells = 1 << 22

    init(rings: [[Coordinate]]) {
        var seams: [Bool] = []
        for ring in rings {
            for c in ring {
                minX = min(minX, c.lon); maxX = max(maxX, c.lon)
                minY = min(minY, c.lat); maxY = max(maxY, c.lat)
            }
            for (a, b) in zip(ring, ring.dropFirst()) where a != b {
                edges.append(PolygonEdge(x1: a.lon, y1: a.lat, x2: b.lon, y2: b.lat))
                seams.append(a.lon == b.lon && abs(a.lon) == 180)
            }
        }
        guard !edges.isEmpty, maxX > minX, maxY > minY else {
            // Nothing to contain: one empty outside cell.
            minX = 0; maxX = 0; minY = 0; maxY = 0
            kinds = [PolygonIndex.Kind.outside.rawValue]
            clearance = [0]
            cellStart = [0, 0]
            rowStart = [0, 0]
            return
        }
        chooseGrid()
        let touched = assignEdges(seams: seams)
        classify(touched: touched)
        computeClearance()
    }

    /// Near-square cells (in ground distance at the box's middle latitude), about
    /// `cellsPerEdge` per edge.
    private mutating func chooseGrid() {
        let target = min(max(edges.count * Self.cellsPerEdge, Self.minimumCells), Self.maximumCells)
        let middle = cos((minY + maxY) / 2 * Double.pi / 180)
        let width = max((maxX - minX) * max(middle, 0.01), 1e-300)
        let height = maxY - minY
        // A box far wider than tall (a height of a few ulps) makes the ideal count overflow
        // an Int: it is bounded as a Double first.
        let ideal = (Double(target) * width / height).squareRoot().rounded()
        columns = ideal.isFinite ? min(max(Int(min(ideal, Double(target))), 1), target) : target
        rows = max(min(target / columns, Self.maximumCells / columns), 1)
        cellWidth = (maxX - minX) / Double(columns)
        cellHeight = (maxY - minY) / Double(rows)
    }

    /// Files every edge in the rows its latitudes span and the cells its stretch in each
    /// row crosses, both widened by a rounding allowance so no cell an edge touches is
    /// taken for empty. Returns the touched cells.
    private mutating func assignEdges(seams: [Bool]) -> [Bool] {
        let slackY = cellHeight * 1e-7 + 1e-12 * max(1, abs(minY), abs(maxY))
        let slackX = cellWidth * 1e-7 + 1e-12 * max(1, abs(minX), abs(maxX))
        var touched = [Bool](repeating: false, count: columns * rows)
        var rowMembers = [[Int32]](repeating: [], count: rows)
        var pairs: [(cell: Int32, edge: Int32)] = []
        for (number, e) in edges.enumerated() {
            let firstRow = clampRow((e.minY - slackY - minY) / cellHeight)
            let lastRow = clampRow((e.maxY + slackY - minY) / cellHeight)
            for row in firstRow...lastRow {
                rowMembers[row].append(Int32(number))
                let bandLow = minY + Double(row) * cellHeight - slackY
                let bandHigh = minY + Double(row + 1) * cellHeight + slackY
                var low = e.minX, high = e.maxX
                if e.y1 != e.y2 {
                    // The stretch of the edge within the band, by its parameter along the edge.
                    let a = (bandLow - e.y1) / (e.y2 - e.y1), b = (bandHigh - e.y1) / (e.y2 - e.y1)
                    let t0 = max(0, min(a, b)), t1 = min(1, max(a, b))
                    let xa = e.x1 + t0 * (e.x2 - e.x1), xb = e.x1 + t1 * (e.x2 - e.x1)
                    low = max(e.minX, min(xa, xb)); high = min(e.maxX, max(xa, xb))
                }
                let firstColumn = clampColumn((low - slackX - minX) / cellWidth)
                let lastColumn = clampColumn((high + slackX - minX) / cellWidth)
                for column in firstColumn...lastColumn {
                    let cell = row * columns + column
                    touched[cell] = true
                    if !seams[number] && edges.count > Self.smallEdges { pairs.append((Int32(cell), Int32(number))) }
                }
            }
        }
        // Cells' edge lists by counting sort.
        cellStart = [Int32](repeating: 0, count: edges.count > Self.smallEdges ? columns * rows + 1 : 0)
        for pair in pairs { cellStart[Int(pair.cell) + 1] += 1 }
        for cell in 0..<max(cellStart.count - 1, 0) { cellStart[cell + 1] += cellStart[cell] }
        var next = cellStart
        cellEdges = [Int32](repeating: 0, count: pairs.count)
        for pair in pairs {
            cellEdges[Int(next[Int(pair.cell)])] = pair.edge
            next[Int(pair.cell)] += 1
        }
        // Rows' edge lists, sorted for the two scan directions.
        rowStart = [0]
        for members in rowMembers {
            let row = members.map { edges[Int($0)] }
            rightward += row.sorted { $0.maxX > $1.maxX }
            leftward += row.sorted { $0.minX < $1.minX }
            rowStart.append(Int32(rightward.count))
        }
        return touched
    }

    /// Bounded as Doubles before the conversion: a degenerate box (cells of a few ulps) makes
    /// the quotient overflow an Int or be NaN.
    private func clampRow(_ value: Double) -> Int { Self.clamp(value, upTo: rows - 1) }
    private func clampColumn(_ value: Double) -> Int { Self.clamp(value, upTo: columns - 1) }

    private static func clamp(_ value: Double, upTo last: Int) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(max(value.rounded(.down), 0), Double(last)))
    }

    /// An empty cell's side from the crossings of its row's centre line east of its centre
    /// (every crossing lies in a touched cell, so at least half a cell from an empty cell's
    /// centre: rounding cannot move it across). A touched cell scans towards the end of its
    /// row with fewer edges.
    private mutating func classify(touched: [Bool]) {
        kinds = [UInt8](repeating: PolygonIndex.Kind.outside.rawValue, count: columns * rows)
        for row in 0..<rows {
            let range = Int(rowStart[row])..<Int(rowStart[row + 1])
            let y = minY + (Double(row) + 0.5) * cellHeight
            var crossings: [Double] = []
            for e in rightward[range] where (e.y1 > y) != (e.y2 > y) {
                crossings.append(e.x1 + (y - e.y1) * (e.x2 - e.x1) / (e.y2 - e.y1))
            }
            crossings.sort()
            let largest = rightward[range].map(\.maxX)  // descending
            let smallest = leftward[range].map(\.minX)  // ascending
            var passed = 0  // crossings west of the current centre
            for column in 0..<columns {
                let cell = row * columns + column
                let left = minX + Double(column) * cellWidth
                if touched[cell] {
                    // Edges a rightward scan may meet (largest longitude ≥ the cell's west
                    // side) against those a leftward scan may meet.
                    let east = Self.countPrefix(largest) { $0 >= left }
                    let west = Self.countPrefix(smallest) { $0 <= left + cellWidth }
                    kinds[cell] = (east <= west ? PolygonIndex.Kind.scanRight : .scanLeft).rawValue
                    continue
                }
                let centre = left + cellWidth / 2
                while passed < crossings.count && crossings[passed] <= centre { passed += 1 }
                let inside = (crossings.count - passed) & 1 == 1
                kinds[cell] = (inside ? PolygonIndex.Kind.inside : .outside).rawValue
            }
        }
    }

    /// How many leading elements satisfy `holds` (which holds for a prefix), by bisection.
    private static func countPrefix(_ values: [Double], _ holds: (Double) -> Bool) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if holds(values[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Each empty cell's distance in cells to the nearest touched one (Chebyshev, by a
    /// breadth-first pass), turned into metres no point of the cell can be nearer the
    /// boundary than.
    private mutating func computeClearance() {
        guard edges.count > Self.smallEdges else { return }
        let count = columns * rows
        var steps = [Int32](repeating: -1, count: count)
        var queue: [Int] = []
        queue.reserveCapacity(count)
        for cell in 0..<count where kinds[cell] >= PolygonIndex.Kind.scanRight.rawValue {
            steps[cell] = 0
            queue.append(cell)
        }
        var head = 0
        while head < queue.count {
            let cell = queue[head]
            head += 1
            let row = cell / columns, column = cell % columns
            for dy in -1...1 {
                for dx in -1...1 {
                    let r = row + dy, c = column + dx
                    guard r >= 0, r < rows, c >= 0, c < columns, steps[r * columns + c] < 0 else { continue }
                    steps[r * columns + c] = steps[cell] + 1
                    queue.append(r * columns + c)
                }
            }
        }
        clearance = [Float](repeating: 0, count: count)
        for cell in 0..<count where steps[cell] > 1 {
            let row = cell / columns
            let cells = Int(steps[cell]) - 1
            // Edges at least `cells` whole cells away in longitude lie in rows within
            // `cells` of this one, or are that far in latitude anyway.
            let south = minY + Double(max(row - cells, 0)) * cellHeight
            let north = minY + Double(min(row + cells + 1, rows)) * cellHeight
            let poleward = max(abs(south), abs(north))
            var meters = Double(cells) * min(cellHeight * DistanceBounds.metersPerDegreeLatitude,
                                             cellWidth * DistanceBounds.metersPerDegreeLongitude(atLatitude: poleward))
            if minX <= -179 && maxX >= 179 {
                // Across the antimeridian the far side of the grid may be near.
                let cellEast = minX + Double(cell % columns + 1) * cellWidth, cellWest = cellEast - cellWidth
                let reach = 180 - max(abs(cellEast), abs(cellWest))
                meters = min(meters, reach * DistanceBounds.metersPerDegreeLongitude(atLatitude: max(abs(minY), abs(maxY))))
            }
            clearance[cell] = Float(meters).nextDown
        }
    }
}

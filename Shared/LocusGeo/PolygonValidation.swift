/// The checks a GeoJSON linear ring must pass before Locus monitors it.
///
/// Messages name the ring and position so a client can find the fault in its own data.
enum PolygonValidation {
    /// Rings with more edges than this skip the quadratic self-crossing check, to bound
    /// the cost of a `region.add`; they are still checked for everything else.
    static let selfIntersectionCheckMaxEdges = 4096

    static func check(ring: [Coordinate], named name: String) throws(ShapeError) {
        guard ring.count >= 4 else {
            throw ShapeError("\(name) has \(ring.count) positions; a linear ring needs at least 4")
        }
        for (index, c) in ring.enumerated() {
            guard c.lat.isFinite, c.lon.isFinite else {
                throw ShapeError("\(name) position \(index) is not a finite number")
            }
            guard abs(c.lat) <= 90 else {
                throw ShapeError("\(name) position \(index) has latitude \(c.lat) outside -90…90 (GeoJSON order is [lon, lat])")
            }
            guard abs(c.lon) <= 180 else {
                throw ShapeError("\(name) position \(index) has longitude \(c.lon) outside -180…180")
            }
        }
        guard ring.first == ring.last else {
            throw ShapeError("\(name) is not closed: its last position must equal its first")
        }
        guard PlanarGeometry.doubledArea(ring) != 0 else {
            throw ShapeError("\(name) encloses no area")
        }
        // Repeated consecutive positions are legal GeoJSON; drop them before looking for crossings.
        var vertices: [Coordinate] = [ring[0]]
        for c in ring.dropFirst() where c != vertices[vertices.count - 1] { vertices.append(c) }
        let edges = vertices.count - 1
        guard edges >= 3 else { throw ShapeError("\(name) has fewer than 3 distinct positions") }
        guard edges <= selfIntersectionCheckMaxEdges else { return }
        for i in 0..<(edges - 2) {
            // Skip the edges that share a vertex with edge i (its neighbours).
            for j in (i + 2)..<edges where !(i == 0 && j == edges - 1) {
                if PlanarGeometry.segmentsIntersect(vertices[i], vertices[i + 1], vertices[j], vertices[j + 1]) {
                    throw ShapeError("\(name) crosses itself near position \(i + 1)")
                }
            }
        }
    }
}

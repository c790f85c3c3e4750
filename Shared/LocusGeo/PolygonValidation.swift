/// The checks a GeoJSON linear ring must pass before Locus monitors it.
///
/// Messages name the ring and position so a client can find the fault in its own data.
enum PolygonValidation {
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
        // Edges by western end, swept eastwards: each is tested only against the edges
        // whose longitudes overlap its own, so a ring of thousands of edges costs about
        // what its length does rather than its square.
        let order = (0..<edges).sorted { min(vertices[$0].lon, vertices[$0 + 1].lon) < min(vertices[$1].lon, vertices[$1 + 1].lon) }
        for (position, i) in order.enumerated() {
            let a = vertices[i], b = vertices[i + 1]
            let east = max(a.lon, b.lon), south = min(a.lat, b.lat), north = max(a.lat, b.lat)
            for j in order[(position + 1)...] {
                let c = vertices[j], d = vertices[j + 1]
                if min(c.lon, d.lon) > east { break }
                // Neighbours share a vertex by construction.
                let gap = abs(i - j)
                if gap == 1 || gap == edges - 1 { continue }
                if max(c.lat, d.lat) < south || min(c.lat, d.lat) > north { continue }
                if PlanarGeometry.segmentsIntersect(a, b, c, d) {
                    throw ShapeError("\(name) crosses itself near position \(min(i, j) + 1)")
                }
            }
        }
    }
}

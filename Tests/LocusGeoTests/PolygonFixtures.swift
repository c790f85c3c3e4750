import Foundation
import LocusGeo

/// Seeded random polygons for the tests: star-shaped rings are always simple, and a
/// smaller star inside the outer ring's inner radius is always a valid hole.
enum PolygonFixtures {
    /// A closed star-shaped ring around `center`, radii in degrees between `minRadius` and `maxRadius`.
    static func starRing(center: Coordinate, minRadius: Double, maxRadius: Double, vertices: Int,
                         using random: inout SeededGenerator) -> [Coordinate] {
        // Jittered, evenly spread angles keep every gap under 1.8 steps, so edges stay
        // near the ring's radius and holes placed inside the inner radius never cross it.
        let step = 2 * Double.pi / Double(vertices)
        let angles = (0..<vertices).map { Double($0) * step + Double.random(in: 0..<(0.8 * step), using: &random) }
        var ring = angles.map { angle in
            let radius = Double.random(in: minRadius...maxRadius, using: &random)
            return Coordinate(lat: center.lat + radius * sin(angle), lon: center.lon + radius * cos(angle))
        }
        ring.append(ring[0])
        return ring
    }

    /// A polygon with `holes` holes around `center` (degrees of size about `size`).
    static func polygon(center: Coordinate, size: Double, holes: Int, using random: inout SeededGenerator) throws -> Polygon {
        var rings = [starRing(center: center, minRadius: size * 0.6, maxRadius: size, vertices: Int.random(in: 12...40, using: &random), using: &random)]
        for hole in 0..<holes {
            // Holes sit side by side inside the outer ring's inner radius, never touching.
            let angle = Double(hole) * 2 * Double.pi / Double(max(holes, 1))
            let offset = holes == 1 ? 0 : size * 0.3
            let holeCenter = Coordinate(lat: center.lat + offset * sin(angle), lon: center.lon + offset * cos(angle))
            let holeSize = holes == 1 ? size * 0.4 : size * 0.12
            rings.append(starRing(center: holeCenter, minRadius: holeSize * 0.5, maxRadius: holeSize, vertices: Int.random(in: 6...12, using: &random), using: &random))
        }
        return try Polygon(rings: rings)
    }
}

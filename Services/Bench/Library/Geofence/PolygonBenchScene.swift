import Foundation
import LocusGeo

/// Seeded polygon files for `locus bench geofence --polygons`, for machines without a
/// public world file at hand: a "world" of 179 country-like (multi)polygons with
/// ragged borders and many vertices, islands and lakes, and a "city" of 10 000 small
/// polygons (blocks, parks, sites) in a 50 km square. Each polygon is star-shaped
/// around its centre, so every ring is simple.
enum PolygonBenchScene {
    static let kinds = ["world", "city"]

    /// The GeoJSON FeatureCollection text of the scene `kind`.
    static func geoJSON(kind: String, seed: UInt64) -> String? {
        var random = SeededGenerator(seed: seed)
        let features: [(id: String, parts: [[[Coordinate]]])]
        switch kind {
        case "world": features = world(using: &random)
        case "city": features = city(using: &random)
        default: return nil
        }
        var text = "{\"type\":\"FeatureCollection\",\"features\":["
        for (number, feature) in features.enumerated() {
            if number > 0 { text += "," }
            let polygons = feature.parts.map { rings in
                "[" + rings.map { ring in "[" + ring.map { "[\($0.lon),\($0.lat)]" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
            }
            let geometry = polygons.count == 1
                ? "{\"type\":\"Polygon\",\"coordinates\":\(polygons[0])}"
                : "{\"type\":\"MultiPolygon\",\"coordinates\":[\(polygons.joined(separator: ","))]}"
            text += "{\"type\":\"Feature\",\"properties\":{\"id\":\"\(feature.id)\"},\"geometry\":\(geometry)}"
        }
        return text + "]}"
    }

    /// 179 countries between 56° S and 72° N, 400–4 000 border vertices each; every
    /// fifth has islands, every seventh a lake.
    static func world(using random: inout SeededGenerator) -> [(id: String, parts: [[[Coordinate]]])] {
        (0..<179).map { number in
            let size = Double.random(in: 0.5...9, using: &random)
            let lat = Double.random(in: -50...65, using: &random)
            let reach = min(reachDegrees(latitude: lat, size: size), 150)
            let centre = Coordinate(lat: lat, lon: Double.random(in: (-179 + reach)...(179 - reach), using: &random))
            let vertices = Int.random(in: 400...4_000, using: &random)
            var mainland = [raggedRing(centre: centre, size: size, vertices: vertices, using: &random)]
            if number % 7 == 0 {
                mainland.append(raggedRing(centre: centre, size: size * 0.12, vertices: 60, using: &random))
            }
            var parts = [mainland]
            if number % 5 == 0 {
                for island in 0..<Int.random(in: 2...12, using: &random) {
                    let angle = Double(island) * 0.9
                    let offset = size * Double.random(in: 1.7...2.4, using: &random)
                    let at = Coordinate(lat: centre.lat + offset * sin(angle), lon: centre.lon + offset * cos(angle) * reachDegrees(latitude: centre.lat, size: 1) / 1.65)
                    let islandSize = size * Double.random(in: 0.03...0.2, using: &random)
                    guard abs(at.lat) + 1.65 * islandSize < 88, abs(at.lon) + reachDegrees(latitude: at.lat, size: islandSize) < 179 else { continue }
                    let island = raggedRing(centre: at, size: islandSize, vertices: Int.random(in: 20...300, using: &random), using: &random)
                    // Parts must not overlap: an island whose box meets another part's is left out.
                    let box = boxOf(island)
                    guard !parts.contains(where: { boxOf($0[0]).intersects(box) }) else { continue }
                    parts.append([island])
                }
            }
            return ("country-\(number)", parts)
        }
    }

    /// 10 000 polygons of 30–600 m with 6–40 vertices around 45° N, 7° E.
    static func city(using random: inout SeededGenerator) -> [(id: String, parts: [[[Coordinate]]])] {
        let plane = LocalTangentPlane(origin: Coordinate(lat: 45, lon: 7))
        let half = GeofenceKernelBench.sceneSideMeters / 2
        return (0..<10_000).map { number in
            let centre = plane.unproject(east: Double.random(in: -half...half, using: &random),
                                         north: Double.random(in: -half...half, using: &random))
            let meters = Double.random(in: 30...600, using: &random)
            let size = meters / 111_000
            let ring = raggedRing(centre: centre, size: size, vertices: Int.random(in: 6...40, using: &random), using: &random)
            return ("site-\(number)", [[ring]])
        }
    }

    static func boxOf(_ ring: [Coordinate]) -> BoundingBox {
        BoundingBox(minLat: ring.map(\.lat).min() ?? 0, minLon: ring.map(\.lon).min() ?? 0,
                    maxLat: ring.map(\.lat).max() ?? 0, maxLon: ring.map(\.lon).max() ?? 0)
    }

    /// Longitude a ring of `size` reaches from its centre at most (see `raggedRing`).
    static func reachDegrees(latitude: Double, size: Double) -> Double {
        1.65 * size / max(cos(latitude * Double.pi / 180), 0.2)
    }

    /// A closed star-shaped ring: radius `size` degrees (latitude; longitude stretched by
    /// 1/cos φ) modulated by a few random waves and per-vertex jitter, ≥ 35 % of `size`.
    static func raggedRing(centre: Coordinate, size: Double, vertices: Int, using random: inout SeededGenerator) -> [Coordinate] {
        let waves = (0..<5).map { _ in
            (frequency: Double(Int.random(in: 2...40, using: &random)), amplitude: Double.random(in: 0...0.12, using: &random),
             phase: Double.random(in: 0..<(2 * Double.pi), using: &random))
        }
        let stretch = 1 / max(cos(centre.lat * Double.pi / 180), 0.2)
        var ring: [Coordinate] = []
        ring.reserveCapacity(vertices + 1)
        for i in 0..<vertices {
            let angle = 2 * Double.pi * Double(i) / Double(vertices)
            var radius = 1.0 + Double.random(in: -0.05...0.05, using: &random)
            for wave in waves { radius += wave.amplitude * sin(wave.frequency * angle + wave.phase) }
            radius = max(radius, 0.35) * size
            ring.append(Coordinate(lat: centre.lat + radius * sin(angle), lon: centre.lon + radius * cos(angle) * stretch))
        }
        ring.append(ring[0])
        return ring
    }
}

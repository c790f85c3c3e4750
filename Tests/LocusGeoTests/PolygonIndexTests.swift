import Foundation
import LocusGeo
import XCTest

/// `PolygonIndex` against shapely's prepared geometry (GEOS) on the same shapes and points,
/// including points exactly on vertices and edges, on the parallels of vertices, and in
/// holes; and its distances against a search over every edge.
final class PolygonIndexTests: XCTestCase {
    /// For each shape and its points: "i" (contains_xy), "b" (intersects but not contains:
    /// the boundary) or "e", from shapely's prepared geometry.
    private static let shapelyScript = """
    import json, sys
    import numpy as np
    import shapely
    from shapely.geometry import Polygon, MultiPolygon
    data = json.load(sys.stdin)
    out = []
    for parts, pts in zip(data["shapes"], data["points"]):
        geometry = MultiPolygon([Polygon(p[0], p[1:]) for p in parts])
        shapely.prepare(geometry)
        xy = np.array(pts, dtype=float).reshape(-1, 2)
        inside = shapely.contains_xy(geometry, xy[:, 0], xy[:, 1])
        touching = shapely.intersects_xy(geometry, xy[:, 0], xy[:, 1])
        out.append("".join("i" if a else ("b" if b else "e") for a, b in zip(inside, touching)))
    print("\\n".join(out))
    """

    func testLocationsAgreeWithShapelyPreparedOnAHundredThousandPoints() throws {
        guard (try? TestSupport.runPython(script: "import shapely, numpy", input: "")) != nil else {
            throw XCTSkip("python3 with shapely is not available; `pip install shapely`")
        }
        var random = SeededGenerator(seed: 2323)
        var shapes: [[[[Coordinate]]]] = []  // parts → rings → positions
        for number in 0..<44 {
            let center = Coordinate(lat: Double.random(in: -60...60, using: &random), lon: Double.random(in: -170...170, using: &random))
            switch number % 4 {
            case 0, 1:
                let size = [0.001, 0.05, 1.5][number % 3]
                var parts = [try PolygonFixtures.polygon(center: center, size: size, holes: number % 3, using: &random).rings]
                if number % 4 == 1 {
                    let far = Coordinate(lat: center.lat + size * 2.5, lon: center.lon + size * 0.5)
                    parts.append(try PolygonFixtures.polygon(center: far, size: size, holes: 1, using: &random).rings)
                }
                shapes.append(parts)
            case 2:
                shapes.append([Self.staircase(center: center, steps: 6 + number % 7, step: 1.0 / 64)])
            default:
                shapes.append([Self.comb(center: center, teeth: 5 + number % 9, unit: 1.0 / 128)])
            }
        }
        let points = shapes.map { Self.probes(for: $0, count: 2_300, using: &random) }
        XCTAssertGreaterThanOrEqual(points.map(\.count).reduce(0, +), 100_000)

        let request: [String: Any] = [
            "shapes": shapes.map { $0.map { $0.map { $0.map { [$0.lon, $0.lat] } } } },
            "points": points.map { $0.flatMap { [$0.lon, $0.lat] } },
        ]
        let input = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let output = try XCTUnwrap(try TestSupport.runPython(script: Self.shapelyScript, input: input), "shapely run failed")
        let answers = output.split(separator: "\n").map { Array($0) }
        XCTAssertEqual(answers.count, shapes.count)

        var counts: [Character: Int] = [:]
        var mismatches: [String] = []
        for (number, parts) in shapes.enumerated() {
            let index = PolygonIndex(rings: parts.flatMap { $0 })
            let multi = MultiPolygon(polygons: try parts.map { try Polygon(rings: $0) })
            for (position, point) in points[number].enumerated() {
                let expected = answers[number][position]
                counts[expected, default: 0] += 1
                let found: Character = switch index.locate(point) { case .interior: "i"; case .boundary: "b"; case .exterior: "e" }
                if found != expected || multi.contains(point) != (expected == "i") {
                    mismatches.append("shape \(number) point \(position) (\(point.lon), \(point.lat)): shapely \(expected), index \(found)")
                }
            }
        }
        XCTAssertEqual(mismatches.count, 0, mismatches.prefix(10).joined(separator: "\n"))
        // The probes reach every kind of answer in numbers.
        XCTAssertGreaterThan(counts["b", default: 0], 10_000)
        XCTAssertGreaterThan(counts["i", default: 0], 20_000)
        XCTAssertGreaterThan(counts["e", default: 0], 20_000)
    }

    func testDistancesAreExactBelowTheNeedAndBoundsAboveIt() throws {
        var random = SeededGenerator(seed: 77)
        for number in 0..<12 {
            let center = Coordinate(lat: Double.random(in: -70...70, using: &random), lon: Double.random(in: -175...175, using: &random))
            let size = [0.002, 0.03, 0.8][number % 3]
            let polygon = try PolygonFixtures.polygon(center: center, size: size, holes: number % 3, using: &random)
            let index = PolygonIndex(rings: polygon.rings)
            for _ in 0..<300 {
                let p = Coordinate(lat: center.lat + Double.random(in: -1.5...1.5, using: &random) * size,
                                   lon: center.lon + Double.random(in: -1.5...1.5, using: &random) * size)
                let exact = Self.bruteForceDistance(p, rings: polygon.rings)
                XCTAssertEqual(index.distanceToBoundaryMeters(p), exact, accuracy: exact * 1e-12 + 1e-9)
                let need = [0.0, 5, 50, 500, 5_000][Int.random(in: 0..<5, using: &random)]
                let signed = index.signedDistanceMeters(p, exactWithin: need)
                XCTAssertEqual(signed < 0, index.contains(p))
                if exact < need {
                    XCTAssertEqual(abs(signed), exact, accuracy: exact * 1e-12 + 1e-9)
                } else {
                    XCTAssertGreaterThanOrEqual(abs(signed), need)
                    XCTAssertLessThanOrEqual(abs(signed), exact * (1 + 1e-12) + 1e-9)
                }
            }
        }
    }

    // MARK: shapes and probes

    /// A rectilinear staircase on a dyadic grid, so points on its edges are exact.
    static func staircase(center: Coordinate, steps: Int, step: Double) -> [[Coordinate]] {
        let x0 = (center.lon * 64).rounded() / 64, y0 = (center.lat * 64).rounded() / 64
        var ring = [Coordinate(lat: y0, lon: x0)]
        for i in 0..<steps {
            ring.append(Coordinate(lat: y0 + Double(i) * step, lon: x0 + Double(i + 1) * step))
            ring.append(Coordinate(lat: y0 + Double(i + 1) * step, lon: x0 + Double(i + 1) * step))
        }
        ring.append(Coordinate(lat: y0 + Double(steps) * step, lon: x0))
        ring.append(ring[0])
        return [ring]
    }

    /// A comb: teeth pointing north from a bar, with a square hole in the bar; many
    /// vertices share latitudes (the crossing rules' hard cases).
    static func comb(center: Coordinate, teeth: Int, unit: Double) -> [[Coordinate]] {
        let x0 = (center.lon * 128).rounded() / 128, y0 = (center.lat * 128).rounded() / 128
        var ring = [Coordinate(lat: y0, lon: x0)]
        let width = Double(teeth * 2 - 1) * unit
        ring.append(Coordinate(lat: y0, lon: x0 + width))
        for tooth in stride(from: teeth - 1, through: 0, by: -1) {
            let left = x0 + Double(tooth * 2) * unit
            ring.append(Coordinate(lat: y0 + 6 * unit, lon: left + unit))
            ring.append(Coordinate(lat: y0 + 6 * unit, lon: left))
            if tooth > 0 {
                ring.append(Coordinate(lat: y0 + 2 * unit, lon: left))
                ring.append(Coordinate(lat: y0 + 2 * unit, lon: left - unit))
            }
        }
        ring.append(ring[0])
        let hole = [Coordinate(lat: y0 + 0.5 * unit, lon: x0 + unit), Coordinate(lat: y0 + 0.5 * unit, lon: x0 + 2 * unit),
                    Coordinate(lat: y0 + 1.5 * unit, lon: x0 + 2 * unit), Coordinate(lat: y0 + 1.5 * unit, lon: x0 + unit),
                    Coordinate(lat: y0 + 0.5 * unit, lon: x0 + unit)]
        return [ring, hole]
    }

    /// Points over the shape's box, on its vertices, on and beside its edges, on its
    /// vertices' parallels and inside its holes.
    static func probes(for parts: [[[Coordinate]]], count: Int, using random: inout SeededGenerator) -> [Coordinate] {
        let rings = parts.flatMap { $0 }
        let all = rings.flatMap { $0 }
        let minLat = all.map(\.lat).min()!, maxLat = all.map(\.lat).max()!
        let minLon = all.map(\.lon).min()!, maxLon = all.map(\.lon).max()!
        let padLat = (maxLat - minLat) * 0.1, padLon = (maxLon - minLon) * 0.1
        var points: [Coordinate] = []
        while points.count < count {
            let ring = rings[Int.random(in: 0..<rings.count, using: &random)]
            let i = Int.random(in: 0..<(ring.count - 1), using: &random)
            let a = ring[i], b = ring[i + 1]
            switch points.count % 8 {
            case 0, 1:
                points.append(Coordinate(lat: Double.random(in: (minLat - padLat)...(maxLat + padLat), using: &random),
                                         lon: Double.random(in: (minLon - padLon)...(maxLon + padLon), using: &random)))
            case 2: points.append(a)
            case 3:
                // On the edge: exact for axis-parallel dyadic edges, within a rounding otherwise.
                let t = [0.5, 0.25, Double.random(in: 0...1, using: &random)][Int.random(in: 0..<3, using: &random)]
                points.append(Coordinate(lat: a.lat + t * (b.lat - a.lat), lon: a.lon + t * (b.lon - a.lon)))
            case 4:
                // A vertex's parallel, anywhere across the shape.
                points.append(Coordinate(lat: a.lat, lon: Double.random(in: (minLon - padLon)...(maxLon + padLon), using: &random)))
            case 5:
                // A hair beside the edge.
                let t = Double.random(in: 0...1, using: &random)
                let nudge = (abs(a.lat) + abs(a.lon) + 1) * 1e-15 * Double.random(in: -8...8, using: &random)
                points.append(Coordinate(lat: a.lat + t * (b.lat - a.lat) + nudge, lon: a.lon + t * (b.lon - a.lon) - nudge))
            case 6:
                // Inside a hole when there is one: near the ring's own middle.
                let hole = rings.count > 1 ? rings[1 + Int.random(in: 0..<(rings.count - 1), using: &random)] : ring
                let mid = hole.dropLast().reduce((0.0, 0.0)) { ($0.0 + $1.lat, $0.1 + $1.lon) }
                let n = Double(hole.count - 1)
                let spread = (maxLat - minLat) * 0.02
                points.append(Coordinate(lat: mid.0 / n + Double.random(in: -spread...spread, using: &random),
                                         lon: mid.1 / n + Double.random(in: -spread...spread, using: &random)))
            default:
                // A vertex's meridian.
                points.append(Coordinate(lat: Double.random(in: (minLat - padLat)...(maxLat + padLat), using: &random), lon: a.lon))
            }
        }
        return points
    }

    /// The tangent-plane distance to every edge, the definition the index must reproduce.
    static func bruteForceDistance(_ p: Coordinate, rings: [[Coordinate]]) -> Double {
        let plane = LocalTangentPlane(origin: p)
        var best = Double.infinity
        for ring in rings {
            for (a, b) in zip(ring, ring.dropFirst()) where a != b {
                let u = plane.project(a), v = plane.project(b)
                let dx = v.east - u.east, dy = v.north - u.north
                let lengthSq = dx * dx + dy * dy
                let t = lengthSq > 0 ? min(1, max(0, -(u.east * dx + u.north * dy) / lengthSq)) : 0
                let x = u.east + t * dx, y = u.north + t * dy
                best = min(best, (x * x + y * y).squareRoot())
            }
        }
        return best
    }
}

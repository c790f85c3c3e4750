import Foundation
import LocusGeo
import XCTest

final class PolygonTests: XCTestCase {
    /// Asks shapely (run live through python3) which points each shape covers, and how far
    /// each point is from the boundary in degrees, so points on edges can be skipped.
    private static let shapelyScript = """
    import json, sys
    from shapely.geometry import Point, Polygon, MultiPolygon
    data = json.load(sys.stdin)
    shapes = [MultiPolygon([Polygon(p[0], p[1:]) for p in s]) for s in data["shapes"]]
    for s, points in zip(shapes, data["points"]):
        print(" ".join("%d:%.17g" % (s.contains(Point(x, y)), s.boundary.distance(Point(x, y))) for x, y in points))
    """

    func testContainsAgreesWithShapelyOnRandomShapes() throws {
        guard (try? TestSupport.runPython(script: "import shapely", input: "")) != nil else {
            throw XCTSkip("python3 with shapely is not available; install python3-shapely or `pip install shapely`")
        }
        var random = SeededGenerator(seed: 21)
        var shapes: [MultiPolygon] = []
        for index in 0..<12 {
            let center = Coordinate(lat: Double.random(in: -60...60, using: &random), lon: Double.random(in: -170...170, using: &random))
            let size = Double.random(in: 0.001...2, using: &random)
            let first = try PolygonFixtures.polygon(center: center, size: size, holes: index % 4, using: &random)
            var parts = [first]
            if index % 3 == 0 {  // a second, disjoint part
                let far = Coordinate(lat: center.lat + size * 3, lon: center.lon)
                parts.append(try PolygonFixtures.polygon(center: far, size: size, holes: 1, using: &random))
            }
            shapes.append(MultiPolygon(polygons: parts))
        }
        // Points over each shape's box and a margin, so both answers are common.
        let points: [[Coordinate]] = shapes.map { shape in
            let box = shape.boundingBox
            let marginLat = (box.maxLat - box.minLat) * 0.2, marginLon = (box.maxLon - box.minLon) * 0.2
            return (0..<3_000).map { _ in
                Coordinate(lat: Double.random(in: (box.minLat - marginLat)...(box.maxLat + marginLat), using: &random),
                           lon: Double.random(in: (box.minLon - marginLon)...(box.maxLon + marginLon), using: &random))
            }
        }
        let request: [String: Any] = [
            "shapes": shapes.map { $0.polygons.map { $0.rings.map { $0.map { [$0.lon, $0.lat] } } } },
            "points": points.map { $0.map { [$0.lon, $0.lat] } },
        ]
        let input = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let output = try XCTUnwrap(try TestSupport.runPython(script: Self.shapelyScript, input: input), "shapely script failed")
        let lines = output.split(separator: "\n")
        XCTAssertEqual(lines.count, shapes.count)
        var compared = 0, insideCount = 0
        for ((shape, shapePoints), line) in zip(zip(shapes, points), lines) {
            let answers = line.split(separator: " ")
            XCTAssertEqual(answers.count, shapePoints.count)
            for (point, answer) in zip(shapePoints, answers) {
                let parts = answer.split(separator: ":")
                guard parts.count == 2, let distance = Double(parts[1]) else { return XCTFail("bad shapely output \(answer)") }
                guard distance > 1e-9 else { continue }  // on or next to an edge: either answer is fine
                let expected = parts[0] == "1"
                XCTAssertEqual(shape.contains(point), expected, "\(point)")
                XCTAssertEqual(Shape.multiPolygon(shape).contains(point), expected)
                compared += 1
                if expected { insideCount += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 30_000)
        XCTAssertGreaterThan(insideCount, compared / 20)  // the comparison saw plenty of both answers
        XCTAssertLessThan(insideCount, compared - compared / 20)
    }

    func testHoleIsOutside() throws {
        let outer = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)].map { Coordinate(lat: $0.1, lon: $0.0) }
        let hole = [(0.4, 0.4), (0.6, 0.4), (0.6, 0.6), (0.4, 0.6), (0.4, 0.4)].map { Coordinate(lat: $0.1, lon: $0.0) }
        let polygon = try Polygon(rings: [outer, hole])
        XCTAssertTrue(polygon.contains(Coordinate(lat: 0.2, lon: 0.2)))
        XCTAssertFalse(polygon.contains(Coordinate(lat: 0.5, lon: 0.5)))
        XCTAssertFalse(polygon.contains(Coordinate(lat: 1.5, lon: 0.5)))
        XCTAssertEqual(polygon.boundingBox, BoundingBox(minLat: 0, minLon: 0, maxLat: 1, maxLon: 1))
        // Inside the hole, the nearest edge is the hole's: 0.1° of latitude away.
        let inHole = Shape.polygon(polygon).signedDistanceMeters(Coordinate(lat: 0.5, lon: 0.5))
        XCTAssertEqual(inHole, Geodesic.distance(Coordinate(lat: 0.5, lon: 0.5), Coordinate(lat: 0.6, lon: 0.5)), accuracy: 1)
        XCTAssertGreaterThan(inHole, 0)
        XCTAssertLessThan(Shape.polygon(polygon).signedDistanceMeters(Coordinate(lat: 0.2, lon: 0.2)), 0)
    }

    /// The planar distance in a tangent plane matches a geodesic search along each edge.
    func testDistanceToBoundaryMatchesGeodesicSearch() throws {
        var random = SeededGenerator(seed: 22)
        for _ in 0..<40 {
            let center = Coordinate(lat: Double.random(in: -70...70, using: &random), lon: Double.random(in: -179...179, using: &random))
            let polygon = try PolygonFixtures.polygon(center: center, size: 0.02, holes: 1, using: &random)
            for _ in 0..<6 {
                let p = Coordinate(lat: center.lat + Double.random(in: -0.03...0.03, using: &random),
                                   lon: center.lon + Double.random(in: -0.03...0.03, using: &random))
                let expected = Self.geodesicDistanceToBoundary(p, polygon)
                XCTAssertEqual(polygon.distanceToBoundaryMeters(p), expected, accuracy: 1e-3 * expected + 0.01, "\(p)")
            }
        }
    }

    /// Minimum over edges of a ternary search on the geodesic distance to points along the edge.
    private static func geodesicDistanceToBoundary(_ p: Coordinate, _ polygon: Polygon) -> Double {
        var best = Double.infinity
        for ring in polygon.rings {
            for (a, b) in zip(ring, ring.dropFirst()) {
                func at(_ t: Double) -> Double {
                    Geodesic.distance(p, Coordinate(lat: a.lat + t * (b.lat - a.lat), lon: a.lon + t * (b.lon - a.lon)))
                }
                var low = 0.0, high = 1.0
                for _ in 0..<50 {
                    let m1 = low + (high - low) / 3, m2 = high - (high - low) / 3
                    if at(m1) < at(m2) { high = m2 } else { low = m1 }
                }
                best = min(best, at((low + high) / 2), at(0), at(1))
            }
        }
        return best
    }

    func testMultiPolygonSplitAtTheAntimeridian() throws {
        let east = [(179.0, -17.0), (180.0, -17.0), (180.0, -16.0), (179.0, -16.0), (179.0, -17.0)].map { Coordinate(lat: $0.1, lon: $0.0) }
        let west = [(-180.0, -17.0), (-179.0, -17.0), (-179.0, -16.0), (-180.0, -16.0), (-180.0, -17.0)].map { Coordinate(lat: $0.1, lon: $0.0) }
        let multi = try MultiPolygon.validated(polygons: [[east], [west]])
        XCTAssertTrue(multi.boundingBox.crossesAntimeridian)
        XCTAssertEqual(multi.boundingBox, BoundingBox(minLat: -17, minLon: 179, maxLat: -16, maxLon: -179))
        XCTAssertTrue(multi.contains(Coordinate(lat: -16.5, lon: 179.5)))
        XCTAssertTrue(multi.contains(Coordinate(lat: -16.5, lon: -179.5)))
        XCTAssertFalse(multi.contains(Coordinate(lat: -16.5, lon: 0)))
        // Across the seam the nearest boundary is the outer edge, not the split line.
        let nearSeam = Coordinate(lat: -16.5, lon: 179.999)
        XCTAssertLessThan(Shape.multiPolygon(multi).signedDistanceMeters(nearSeam), -50_000)
    }

    func testValidationNamesTheProblem() {
        func message(_ rings: [[(Double, Double)]]) -> String? {
            do {
                _ = try Polygon(rings: rings.map { $0.map { Coordinate(lat: $0.1, lon: $0.0) } })
                return nil
            } catch {
                return error.message
            }
        }
        let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0)]
        XCTAssertNil(message([square]))
        XCTAssertNil(message([[(0, 0), (1, 0), (1, 0), (1, 1), (0, 1), (0, 0)]]))  // repeated position is legal
        XCTAssertEqual(message([]), "polygon has no rings")
        XCTAssertTrue(message([[(0, 0), (1, 0), (0, 0)]])?.contains("at least 4") ?? false)
        XCTAssertTrue(message([[(0, 0), (1, 0), (1, 1), (0, 1)]])?.contains("not closed") ?? false)
        XCTAssertTrue(message([[(0, 0), (.nan, 0), (1, 1), (0, 0)]])?.contains("finite") ?? false)
        XCTAssertTrue(message([[(0, 0), (0, 95), (1, 1), (0, 0)]])?.contains("latitude 95") ?? false)
        XCTAssertTrue(message([[(0, 0), (190, 0), (1, 1), (0, 0)]])?.contains("longitude 190") ?? false)
        XCTAssertTrue(message([[(0, 0), (1, 1), (2, 2), (0, 0)]])?.contains("no area") ?? false)
        XCTAssertTrue(message([[(0, 0), (2, 2), (2, 0), (0, 1), (0, 0)]])?.contains("crosses itself") ?? false)
        XCTAssertTrue(message([square, [(0.2, 0.2), (0.4, 0.2), (0.2, 0.4)]])?.hasPrefix("hole 1") ?? false)
        XCTAssertThrowsError(try MultiPolygon.validated(polygons: [])) { error in
            XCTAssertEqual(error as? ShapeError, ShapeError("multipolygon has no polygons"))
        }
    }
}

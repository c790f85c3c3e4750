import LocusGeo
import XCTest

final class SpatialIndexTests: XCTestCase {
    /// A mix of box sizes from metres to continents, some across ±180°, some around a pole.
    private func randomBox(using random: inout SeededGenerator) -> BoundingBox {
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            let lat = Double.random(in: -80...80, using: &random)
            return BoundingBox(minLat: lat, minLon: Double.random(in: 170...180, using: &random),
                               maxLat: lat + Double.random(in: 0...5, using: &random), maxLon: Double.random(in: -180...(-170), using: &random))
        case 1:
            let north = Bool.random(using: &random)
            let edge = Double.random(in: 60...89, using: &random)
            return north ? BoundingBox(minLat: edge, minLon: -180, maxLat: 90, maxLon: 180)
                         : BoundingBox(minLat: -90, minLon: -180, maxLat: -edge, maxLon: 180)
        case 2:
            return Circle(center: Coordinate(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180...180, using: &random)),
                          radiusMeters: Double.random(in: 1...2_000_000, using: &random)).boundingBox
        default:
            let sizes: [Double] = [0.0005, 0.01, 0.3, 8]
            let size = sizes.randomElement(using: &random) ?? 1
            let lat = Double.random(in: -89...(89 - size), using: &random), lon = Double.random(in: -180...(180 - size), using: &random)
            return BoundingBox(minLat: lat, minLon: lon, maxLat: lat + Double.random(in: 0...size, using: &random),
                               maxLon: lon + Double.random(in: 0...size, using: &random))
        }
    }

    func testMatchesBruteForceThroughInsertsMovesAndRemovals() {
        var random = SeededGenerator(seed: 31)
        var index = SpatialIndex<Int>()
        var truth: [Int: BoundingBox] = [:]
        for id in 0..<4_000 {
            let box = randomBox(using: &random)
            index.insert(id, box: box)
            truth[id] = box
        }
        for _ in 0..<1_000 {  // move some, remove some
            let id = Int.random(in: 0..<4_000, using: &random)
            if Bool.random(using: &random) {
                let box = randomBox(using: &random)
                index.insert(id, box: box)
                truth[id] = box
            } else {
                index.remove(id)
                truth[id] = nil
            }
        }
        XCTAssertEqual(index.count, truth.count)
        var nonEmpty = 0
        for trial in 0..<3_000 {
            // Half the points near stored boxes, so most queries have answers.
            let p: Coordinate
            if trial % 2 == 0, let box = truth.values.randomElement(using: &random), !box.crossesAntimeridian {
                p = Coordinate(lat: Double.random(in: box.minLat...box.maxLat, using: &random), lon: Double.random(in: box.minLon...box.maxLon, using: &random))
            } else {
                p = Coordinate(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180...180, using: &random))
            }
            let expected = Set(truth.filter { $0.value.contains(p) }.keys)
            let found = index.candidates(containing: p)
            XCTAssertEqual(found.count, Set(found).count, "duplicates at \(p)")
            XCTAssertTrue(expected.isSubset(of: Set(found)), "missed \(expected.subtracting(found)) at \(p)")
            // Cells keep boxes in single precision rounded outward: an extra is a box that
            // misses the point by less than that rounding (2e-5° covers it at ±180°).
            for extra in Set(found).subtracting(expected) {
                let box = truth[extra]!
                let widened = BoundingBox(minLat: box.minLat - 2e-5, minLon: box.minLon - 2e-5, maxLat: box.maxLat + 2e-5, maxLon: box.maxLon + 2e-5)
                XCTAssertTrue(widened.contains(p), "box \(extra) is far from \(p)")
            }
            if !expected.isEmpty { nonEmpty += 1 }
        }
        XCTAssertGreaterThan(nonEmpty, 1_000)
    }

    func testNearQueryMatchesBruteForce() {
        var random = SeededGenerator(seed: 32)
        var index = SpatialIndex<Int>()
        var truth: [Int: BoundingBox] = [:]
        for id in 0..<2_000 {
            let box = randomBox(using: &random)
            index.insert(id, box: box)
            truth[id] = box
        }
        for _ in 0..<500 {
            let p = Coordinate(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180...180, using: &random))
            let distances: [Double] = [10, 1_000, 50_000, 500_000]
            let meters = distances.randomElement(using: &random) ?? 10
            let query = BoundingBox(minLat: p.lat, minLon: p.lon, maxLat: p.lat, maxLon: p.lon).expanded(byMeters: meters)
            var found: [Int] = []
            index.candidates(near: p, withinMeters: meters, into: &found)
            XCTAssertEqual(found.count, Set(found).count)
            XCTAssertEqual(Set(found), Set(truth.filter { $0.value.intersects(query) }.keys), "near \(p) within \(meters)")
        }
    }

    /// The expanded query box really holds every point within the distance.
    func testExpandedBoxHoldsEveryPointWithinTheDistance() {
        var random = SeededGenerator(seed: 33)
        for _ in 0..<500 {
            let p = Coordinate(lat: Double.random(in: -90...90, using: &random), lon: Double.random(in: -180...180, using: &random))
            let meters = Double.random(in: 1...300_000, using: &random)
            let box = BoundingBox(minLat: p.lat, minLon: p.lon, maxLat: p.lat, maxLon: p.lon).expanded(byMeters: meters)
            for step in 0..<36 {
                let q = Geodesic.destination(from: p, azimuthDegrees: Double(step) * 10, distanceMeters: meters)
                XCTAssertTrue(box.contains(q), "\(q) within \(meters) of \(p) outside \(box)")
            }
        }
    }

    func testBoxesAcrossTheAntimeridian() {
        var index = SpatialIndex<String>()
        index.insert("fiji", box: BoundingBox(minLat: -19, minLon: 177, maxLat: -16, maxLon: -179))
        index.insert("paris", box: BoundingBox(minLat: 48.8, minLon: 2.2, maxLat: 48.9, maxLon: 2.4))
        XCTAssertEqual(index.candidates(containing: Coordinate(lat: -17, lon: 178)), ["fiji"])
        XCTAssertEqual(index.candidates(containing: Coordinate(lat: -17, lon: -179.5)), ["fiji"])
        XCTAssertEqual(index.candidates(containing: Coordinate(lat: -17, lon: 0)), [])
        XCTAssertEqual(index.candidates(containing: Coordinate(lat: 48.85, lon: 2.3)), ["paris"])
        index.remove("fiji")
        XCTAssertEqual(index.candidates(containing: Coordinate(lat: -17, lon: 178)), [])
        XCTAssertEqual(index.count, 1)
        XCTAssertEqual(index.box(for: "paris")?.minLat, 48.8)
    }
}

final class SpatialIndexScaleTests: XCTestCase {
    /// 100 000 boxes and 1 000 000 queries; run with LOCUS_BENCH=1 on a release build:
    /// `LOCUS_BENCH=1 swift test -c release --filter SpatialIndexScaleTests`.
    func testHundredThousandBoxesMillionQueries() throws {
        guard ProcessInfo.processInfo.environment["LOCUS_BENCH"] == "1" else {
            throw XCTSkip("set LOCUS_BENCH=1 (release build) to time 100 000 boxes × 1 000 000 queries")
        }
        var random = SeededGenerator(seed: 51)
        // Circles of 50 m–5 km over a 500 km square, plus a few hundred large regions.
        let plane = LocalTangentPlane(origin: Coordinate(lat: 50, lon: 10))
        func randomPoint() -> Coordinate {
            plane.unproject(east: Double.random(in: -250_000...250_000, using: &random), north: Double.random(in: -250_000...250_000, using: &random))
        }
        let boxes = (0..<100_000).map { number in
            Circle(center: randomPoint(), radiusMeters: number % 300 == 0 ? Double.random(in: 20_000...200_000, using: &random)
                                                                          : Double.random(in: 50...5_000, using: &random)).boundingBox
        }
        let points = (0..<1_000_000).map { _ in randomPoint() }
        var index = SpatialIndex<Int>()
        let insertStart = Date()
        for (number, box) in boxes.enumerated() { index.insert(number, box: box) }
        let insertSeconds = Date().timeIntervalSince(insertStart)
        var found = 0
        let queryStart = Date()
        for p in points { index.forEachCandidate(containing: p) { _ in found += 1 } }
        let querySeconds = Date().timeIntervalSince(queryStart)
        print(String(format: "SpatialIndex: 100000 inserts in %.3f s; 1000000 queries in %.3f s (%.0f queries/s), %.2f candidates per query",
                     insertSeconds, querySeconds, 1e6 / querySeconds, Double(found) / 1e6))
        // Spot-check correctness at this scale against brute force.
        for p in points.prefix(200) {
            XCTAssertEqual(Set(index.candidates(containing: p)), Set(boxes.indices.filter { boxes[$0].contains(p) }))
        }
        XCTAssertEqual(index.count, 100_000)
    }
}

import Foundation
import LocusGeo
import XCTest

/// Properties of `Geodesic` that hold without a reference table: the direct and inverse
/// problems undo each other, the closed-form cases (coincident points, poles, meridians,
/// the equator) come out exact, and concurrent callers get the serial answers.
final class GeodesicPropertyTests: XCTestCase {
    /// WGS-84 equatorial radius, metres.
    private let a = 6_378_137.0
    /// WGS-84 flattening.
    private let f = 1 / 298.257223563

    private func randomPoint(_ rng: inout SeededGenerator) -> Coordinate {
        Coordinate(lat: Double.random(in: -90...90, using: &rng), lon: Double.random(in: -180...180, using: &rng))
    }

    /// A point within `spreadDegrees` of the antipode of `p`.
    private func nearAntipode(of p: Coordinate, spreadDegrees: Double, _ rng: inout SeededGenerator) -> Coordinate {
        let lat = max(-90, min(90, -p.lat + Double.random(in: -spreadDegrees...spreadDegrees, using: &rng)))
        let lon = remainder(p.lon + 180 + Double.random(in: -spreadDegrees...spreadDegrees, using: &rng), 360)
        return Coordinate(lat: lat, lon: lon)
    }

    func testDirectUndoesInverseOnTwoThousandSeededPairs() {
        var rng = SeededGenerator(seed: 20_261_129)
        var worstMeters = 0.0
        for index in 0..<2_000 {
            let start = randomPoint(&rng)
            let end: Coordinate
            switch index % 4 {
            case 0: end = nearAntipode(of: start, spreadDegrees: 0.5, &rng)
            case 1: end = nearAntipode(of: start, spreadDegrees: 1e-4, &rng)
            default: end = randomPoint(&rng)
            }
            let line = Geodesic.inverse(start, end)
            let reached = Geodesic.destination(from: start, azimuthDegrees: line.azimuth1Degrees, distanceMeters: line.distanceMeters)
            let miss = Geodesic.distance(reached, end)
            worstMeters = max(worstMeters, miss)
            XCTAssertLessThan(miss, 1e-3, "\(start) → \(end): reached \(reached)")
            // No path on WGS-84 is longer than half the meridian ellipse (pole to pole).
            XCTAssertLessThanOrEqual(line.distanceMeters, 20_003_931.46, "\(start) → \(end)")
        }
        XCTAssertLessThan(worstMeters, 1e-3)
    }

    func testInverseIsSymmetricWithReversedAzimuths() {
        var rng = SeededGenerator(seed: 77)
        for index in 0..<500 {
            let p = randomPoint(&rng)
            let q = index.isMultiple(of: 2) ? nearAntipode(of: p, spreadDegrees: 0.3, &rng) : randomPoint(&rng)
            let forward = Geodesic.inverse(p, q), backward = Geodesic.inverse(q, p)
            XCTAssertEqual(forward.distanceMeters, backward.distanceMeters, accuracy: 1e-6, "\(p) ↔ \(q)")
            // Travelling back, you leave q opposite to how you arrived there.
            let reversed = forward.azimuth2Degrees + 180
            XCTAssertLessThan(TestSupport.angleDifference(backward.azimuth1Degrees, reversed), 1e-6, "\(p) ↔ \(q)")
        }
    }

    func testCoincidentPointsAreZeroApart() {
        var rng = SeededGenerator(seed: 5)
        var points = (0..<200).map { _ in randomPoint(&rng) }
        points += [Coordinate(lat: 90, lon: 0), Coordinate(lat: -90, lon: 45), Coordinate(lat: 0, lon: 180), Coordinate(lat: 0, lon: 0)]
        for p in points {
            XCTAssertEqual(Geodesic.distance(p, p), 0, "\(p)")
            let end = Geodesic.destination(from: p, azimuthDegrees: 123, distanceMeters: 0)
            XCTAssertEqual(end.lat, p.lat, accuracy: 1e-12, "\(p)")
            XCTAssertLessThan(TestSupport.angleDifference(end.lon, p.lon), 1e-12, "\(p)")
        }
        // ±180 is one meridian; a pole is one point whatever its longitude.
        XCTAssertEqual(Geodesic.distance(Coordinate(lat: 12, lon: 180), Coordinate(lat: 12, lon: -180)), 0)
        XCTAssertEqual(Geodesic.distance(Coordinate(lat: 90, lon: 10), Coordinate(lat: 90, lon: -130)), 0)
    }

    func testPolesAndMeridians() {
        let quarterMeridian = Geodesic.distance(Coordinate(lat: 0, lon: 30), Coordinate(lat: 90, lon: 30))
        // The WGS-84 quarter meridian is 10 001 965.729 m (NIMA TR8350.2).
        XCTAssertEqual(quarterMeridian, 10_001_965.729, accuracy: 1e-3)
        let poleToPole = Geodesic.inverse(Coordinate(lat: -90, lon: 0), Coordinate(lat: 90, lon: 0))
        XCTAssertEqual(poleToPole.distanceMeters, 2 * quarterMeridian, accuracy: 1e-6)
        XCTAssertEqual(poleToPole.azimuth1Degrees, 0, accuracy: 1e-9)

        // Meridian arcs add up, and the pole is reached heading due north or south.
        let lon = -71.0
        let parts = [0.0, 17.5, 41.25, 66.0, 90.0].map { Coordinate(lat: $0, lon: lon) }
        let sum = zip(parts, parts.dropFirst()).map { Geodesic.distance($0, $1) }.reduce(0, +)
        XCTAssertEqual(sum, quarterMeridian, accuracy: 1e-6)
        XCTAssertEqual(Geodesic.azimuth(from: Coordinate(lat: 48, lon: 2), to: Coordinate(lat: 90, lon: 0)), 0, accuracy: 1e-9)
        XCTAssertEqual(Geodesic.azimuth(from: Coordinate(lat: 48, lon: 2), to: Coordinate(lat: -90, lon: 0)), 180, accuracy: 1e-9)
        let southward = Geodesic.destination(from: Coordinate(lat: 90, lon: 0), azimuthDegrees: 180, distanceMeters: quarterMeridian)
        XCTAssertEqual(southward.lat, 0, accuracy: 1e-9)
    }

    func testEquatorIsFollowedUntilTheGeodesicLeavesIt() {
        // Along the equator the geodesic is the circle of radius a, up to (1 − f)·180° apart.
        for lon2 in [0.001, 1, 45, 90, 179] {
            let line = Geodesic.inverse(Coordinate(lat: 0, lon: -20), Coordinate(lat: 0, lon: -20 + lon2))
            XCTAssertEqual(line.distanceMeters, a * lon2 * .pi / 180, accuracy: 1e-6 * max(1, lon2), "Δλ \(lon2)")
            XCTAssertEqual(line.azimuth1Degrees, 90, accuracy: 1e-9)
            XCTAssertEqual(line.azimuth2Degrees, 90, accuracy: 1e-9)
        }
        // Beyond it the shortest path bends towards a pole and is shorter than the equator.
        let limitDegrees = (1 - f) * 180
        let beyond = Geodesic.inverse(Coordinate(lat: 0, lon: 0), Coordinate(lat: 0, lon: limitDegrees + 0.3))
        XCTAssertLessThan(beyond.distanceMeters, a * (limitDegrees + 0.3) * .pi / 180)
        XCTAssertGreaterThan(abs(beyond.azimuth1Degrees - 90), 1)
        // Exactly antipodal on the equator: over a pole.
        let antipodal = Geodesic.inverse(Coordinate(lat: 0, lon: 10), Coordinate(lat: 0, lon: -170))
        let poleToPole = Geodesic.distance(Coordinate(lat: -90, lon: 0), Coordinate(lat: 90, lon: 0))
        XCTAssertEqual(antipodal.distanceMeters, poleToPole, accuracy: 1e-6)
        XCTAssertLessThan(min(antipodal.azimuth1Degrees, 360 - antipodal.azimuth1Degrees, abs(antipodal.azimuth1Degrees - 180)), 1e-6)
    }

    func testInvalidLatitudeGivesNaNInsteadOfAnotherPoint() {
        XCTAssertTrue(Geodesic.distance(Coordinate(lat: 95, lon: 0), Coordinate(lat: 10, lon: 0)).isNaN)
        XCTAssertTrue(Geodesic.distance(Coordinate(lat: .nan, lon: 0), Coordinate(lat: 10, lon: 0)).isNaN)
        XCTAssertTrue(Geodesic.destination(from: Coordinate(lat: -91, lon: 0), azimuthDegrees: 0, distanceMeters: 10).lat.isNaN)
    }

    func testConcurrentCallersGetTheSerialAnswers() {
        var rng = SeededGenerator(seed: 99)
        let pairs = (0..<4_000).map { _ in (randomPoint(&rng), randomPoint(&rng)) }
        let serial = pairs.map { Geodesic.inverse($0.0, $0.1) }
        let chunks = 8, chunkSize = pairs.count / chunks
        let mismatches = MismatchCounter()
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for index in chunk * chunkSize..<(chunk + 1) * chunkSize where Geodesic.inverse(pairs[index].0, pairs[index].1) != serial[index] {
                mismatches.add()
            }
        }
        XCTAssertEqual(mismatches.count, 0)
    }
}

/// A lock-protected counter for the concurrency test.
private final class MismatchCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

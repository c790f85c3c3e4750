import LocusGeo
import XCTest
@testable import LocusProvider

/// The estimate from known beacons: weighting, rejection of beacons far from the rest, radius.
final class NetworkEstimatorTests: XCTestCase {
    let plane = LocalTangentPlane(origin: Coordinate(lat: 48.137, lon: 11.575))
    let estimator = NetworkEstimator(kind: .wifi)

    func beacon(_ east: Double, _ north: Double, signal: Double?, radius: Double = 60, samples: Int = 20) -> NetworkEstimator.Beacon {
        NetworkEstimator.Beacon(position: plane.unproject(east: east, north: north), radius: radius, samples: samples, signalDBm: signal)
    }

    func offset(_ coordinate: Coordinate) -> (east: Double, north: Double) { plane.project(coordinate) }

    func testStrongerBeaconsPullHarder() throws {
        // The device is near the first access point: loud there, faint at the others.
        let beacons = [beacon(0, 0, signal: -55), beacon(80, 0, signal: -85), beacon(0, 80, signal: -85), beacon(80, 80, signal: -90)]
        let estimate = try XCTUnwrap(estimator.estimate(beacons))
        let at = offset(estimate.position)
        XCTAssertLessThan(hypot(at.east, at.north), 35, "closer to the loud access point than the plain mean (57 m away)")
        XCTAssertEqual(estimate.used, [0, 1, 2, 3])
        XCTAssertTrue(estimate.rejected.isEmpty)
    }

    func testABeaconFarFromTheRestIsRejectedEvenWhenItIsTheLoudest() throws {
        var beacons = (0..<6).map { index in beacon(Double(index % 3) * 40, Double(index / 3) * 40, signal: -75) }
        beacons.append(beacon(2_000, 1_500, signal: -50))  // moved house, or a hotspot on a bus
        let estimate = try XCTUnwrap(estimator.estimate(beacons))
        XCTAssertEqual(estimate.rejected, [6])
        let at = offset(estimate.position)
        XCTAssertLessThan(hypot(at.east - 40, at.north - 20), 30)
    }

    func testTwoBeaconsThatDisagreeKeepTheStrongerAndSaySo() throws {
        let estimate = try XCTUnwrap(estimator.estimate([beacon(0, 0, signal: -80), beacon(1_500, 0, signal: -60)]))
        XCTAssertEqual(estimate.used, [1])
        XCTAssertEqual(estimate.rejected, [0])
    }

    func testRadiusGrowsWithFewerAndFainterBeaconsAndHasAFloor() throws {
        let many = (0..<16).map { index in beacon(Double(index % 4) * 30, Double(index / 4) * 30, signal: -60) }
        let one = [beacon(0, 0, signal: -85)]
        let manyEstimate = try XCTUnwrap(estimator.estimate(many))
        let oneEstimate = try XCTUnwrap(estimator.estimate(one))
        XCTAssertGreaterThanOrEqual(manyEstimate.hacc, estimator.minimumHacc)
        XCTAssertGreaterThan(oneEstimate.hacc, 2 * manyEstimate.hacc)
        let freshlyLearned = try XCTUnwrap(estimator.estimate([beacon(0, 0, signal: -85, samples: 1)]))
        XCTAssertGreaterThan(freshlyLearned.hacc, oneEstimate.hacc, "less evidence behind the stored position, a wider radius")
    }

    func testACellWithoutSignalIsItsPositionWithARadiusFromItsCoverage() throws {
        let cells = NetworkEstimator(kind: .cell)
        let estimate = try XCTUnwrap(cells.estimate([beacon(100, 200, signal: nil, radius: 1_500, samples: 30)]))
        let at = offset(estimate.position)
        XCTAssertEqual(at.east, 100, accuracy: 0.01)
        XCTAssertEqual(at.north, 200, accuracy: 0.01)
        XCTAssertGreaterThan(estimate.hacc, 400)
        XCTAssertLessThan(estimate.hacc, 1_500)
    }

    func testNothingKnownOrInvalidGivesNoEstimate() {
        XCTAssertNil(estimator.estimate([]))
        XCTAssertNil(estimator.estimate([NetworkEstimator.Beacon(position: Coordinate(lat: .nan, lon: 0), radius: 50, samples: 1, signalDBm: -60)]))
        XCTAssertNil(estimator.estimate([NetworkEstimator.Beacon(position: Coordinate(lat: 95, lon: 0), radius: 50, samples: 1, signalDBm: -60)]))
        XCTAssertNil(estimator.estimate([NetworkEstimator.Beacon(position: Coordinate(lat: 1, lon: 0), radius: .infinity, samples: 1, signalDBm: -60)]))
    }

    func testANonFiniteSignalCountsAsNoSignal() throws {
        let estimate = try XCTUnwrap(estimator.estimate([beacon(0, 0, signal: .nan), beacon(30, 0, signal: -70)]))
        XCTAssertTrue(estimate.hacc.isFinite)
        XCTAssertEqual(estimate.used.count, 2)
    }
}

import LocusGeo
import XCTest
@testable import LocusProvider

final class SimGeneratorTests: XCTestCase {
    private let home = Coordinate(lat: 48.137, lon: 11.575)

    private func stationary(seconds: Double, _ adjust: (inout SimConfiguration) -> Void = { _ in }) -> [SimGenerator.Fix] {
        let route = RoutePath(vertices: [.init(coordinate: home, elevation: nil, offset: 0)])
        var configuration = SimConfiguration(route: route, startTime: 1_700_000_000)
        configuration.durationSeconds = seconds
        adjust(&configuration)
        var generator = SimGenerator(configuration)
        var fixes: [SimGenerator.Fix] = []
        while let fix = generator.next() { fixes.append(fix) }
        return fixes
    }

    /// East/north error of each fix against its truth, in metres.
    private func errors(_ fixes: [SimGenerator.Fix]) -> [(east: Double, north: Double)] {
        fixes.map { LocalTangentPlane(origin: $0.truth).project(Coordinate(lat: $0.location.lat, lon: $0.location.lon)) }
    }

    private func standardDeviation(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
    }

    func testSameSeedSameOutputDifferentSeedDifferentOutput() {
        let setup: (inout SimConfiguration) -> Void = {
            $0.biasSigmaMeters = 2
            $0.outlierRate = 0.05
            $0.wifi = .init(hz: 0.5, haccMeters: 30)
            $0.cell = .init(hz: 0.1, haccMeters: 800)
            $0.coldStartSeconds = 10
            $0.seed = 7
        }
        let first = stationary(seconds: 300, setup)
        let second = stationary(seconds: 300, setup)
        XCTAssertEqual(first, second)
        let other = stationary(seconds: 300) { setup(&$0); $0.seed = 8 }
        XCTAssertNotEqual(first.map(\.location.lat), other.map(\.location.lat))
    }

    func testWhiteNoiseMatchesTheConfiguredAccuracy() {
        let fixes = stationary(seconds: 19_999) { $0.haccMeters = 10 }
        XCTAssertEqual(fixes.count, 20_000)
        let e = errors(fixes)
        let sigma = 10 / NMEAAccuracyModel.radius68PerSigma
        let east = standardDeviation(e.map(\.east)), north = standardDeviation(e.map(\.north))
        print("sim white noise: sigma east \(east) north \(north) expected \(sigma)")
        XCTAssertEqual(east, sigma, accuracy: sigma * 0.03)
        XCTAssertEqual(north, sigma, accuracy: sigma * 0.03)
        let inside = Double(e.filter { ($0.east * $0.east + $0.north * $0.north).squareRoot() <= 10 }.count) / Double(e.count)
        print("sim white noise: fraction within hacc \(inside)")
        XCTAssertEqual(inside, 0.68, accuracy: 0.015)
    }

    func testCorrelatedBiasHasConfiguredSigmaAndCorrelationTime() {
        let fixes = stationary(seconds: 59_999) {
            $0.haccMeters = 0.0001
            $0.biasSigmaMeters = 4
            $0.biasTauSeconds = 20
        }
        let east = errors(fixes).map(\.east)
        let sigma = standardDeviation(east)
        let mean = east.reduce(0, +) / Double(east.count)
        var numerator = 0.0, denominator = 0.0
        for index in east.indices.dropLast() { numerator += (east[index] - mean) * (east[index + 1] - mean) }
        for value in east { denominator += (value - mean) * (value - mean) }
        let lagOne = numerator / denominator
        print("sim bias: sigma \(sigma) (4), lag-1 autocorrelation \(lagOne) (\(exp(-1.0 / 20)))")
        XCTAssertEqual(sigma, 4, accuracy: 0.4)
        XCTAssertEqual(lagOne, exp(-1.0 / 20), accuracy: 0.01)
    }

    func testOutliersAppearAtTheConfiguredRate() {
        let fixes = stationary(seconds: 9_999) {
            $0.haccMeters = 3
            $0.outlierRate = 0.05
            $0.outlierMeters = 200
        }
        let far = errors(fixes).filter { ($0.east * $0.east + $0.north * $0.north).squareRoot() > 60 }.count
        let flagged = fixes.filter(\.isOutlier).count
        print("sim outliers: \(far) of \(fixes.count) beyond 60 m (expected 5%)")
        XCTAssertEqual(far, flagged)
        XCTAssertEqual(Double(far) / Double(fixes.count), 0.05, accuracy: 0.01)
    }

    func testOutageWindowHasNoGNSSButKeepsSecondarySources() {
        let fixes = stationary(seconds: 100) {
            $0.outages = [.init(startSeconds: 30, durationSeconds: 20)]
            $0.wifi = .init(hz: 0.2, haccMeters: 30)
        }
        let offsets = fixes.filter { $0.location.source == "gps" }.map { $0.t - 1_700_000_000 }
        XCTAssertFalse(offsets.contains { $0 >= 30 && $0 < 50 })
        XCTAssertEqual(offsets.count, 101 - 20)
        let wifi = fixes.filter { $0.location.source == "wifi" }
        XCTAssertEqual(wifi.count, 21)
        XCTAssertTrue(wifi.allSatisfy { $0.location.hacc == 30 })
    }

    func testOutageDoesNotChangeNoiseAfterIt() {
        let plain = stationary(seconds: 100)
        let withOutage = stationary(seconds: 100) { $0.outages = [.init(startSeconds: 10, durationSeconds: 5)] }
        XCTAssertEqual(Array(plain.suffix(50)), Array(withOutage.suffix(50)))
    }

    func testColdStartConvergesFromCoarseToConfiguredAccuracy() {
        let fixes = stationary(seconds: 20) {
            $0.haccMeters = 5
            $0.coldStartSeconds = 10
            $0.coldHaccMeters = 300
        }
        let hacc = fixes.map(\.location.hacc)
        XCTAssertEqual(hacc[0], 300, accuracy: 1e-9)
        XCTAssertTrue(zip(hacc.prefix(11), hacc.prefix(11).dropFirst()).allSatisfy { $0 > $1 })
        XCTAssertTrue(hacc.suffix(from: 10).allSatisfy { $0 == 5 })
    }

    func testAddingWifiDoesNotChangeGNSSNoise() {
        let alone = stationary(seconds: 50)
        let mixed = stationary(seconds: 50) { $0.wifi = .init(hz: 1, haccMeters: 30) }.filter { $0.location.source == "gps" }
        XCTAssertEqual(alone, mixed)
    }

    func testMovesAlongTheRouteAtTheGivenSpeed() {
        let points = [GPXPoint(lat: 0, lon: 0), GPXPoint(lat: 0, lon: 0.01)]
        var configuration = SimConfiguration(route: RoutePath(points: points, metersPerSecond: 10), startTime: 0)
        configuration.haccMeters = 0.0001
        var generator = SimGenerator(configuration)
        var fixes: [SimGenerator.Fix] = []
        while let fix = generator.next() { fixes.append(fix) }
        let length = Geodesic.distance(Coordinate(lat: 0, lon: 0), Coordinate(lat: 0, lon: 0.01))
        XCTAssertEqual(fixes.count, Int(length / 10) + 1)
        XCTAssertEqual(fixes[50].truth.lon, 50 * 10 / length * 0.01, accuracy: 1e-7)
        XCTAssertEqual(fixes[50].location.speed!, 10, accuracy: 1e-6)
    }
}

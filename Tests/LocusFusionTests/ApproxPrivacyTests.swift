import LocusFusion
import LocusGeo
import LocusProtocol
import XCTest

/// The reduced-accuracy stream: stable within a period, no better on average over a day,
/// nothing precise left in the message.
final class ApproxPrivacyTests: XCTestCase {
    private let secret = Array("a test secret of thirty-two bytes".utf8)

    func testOneQueryPointPerPeriod() {
        let approx = ApproximateLocation(secret: secret)
        let periodStart = approx.periodIndex(t: testEpoch) == approx.periodIndex(t: testEpoch + 800) ? testEpoch : testEpoch + 900
        var random = SeededGenerator(seed: 1)
        var points = Set<Coordinate>()
        for _ in 0..<1_000 {
            // Queries from anywhere within 50 m of one spot, any time in the period.
            let here = offset(testBase, east: Double.random(in: -50...50, using: &random), north: Double.random(in: -50...50, using: &random))
            let t = (periodStart / 900).rounded(.down) * 900 + Double.random(in: 0..<900, using: &random)
            points.insert(approx.reduce(here, device: "phone", t: t))
        }
        // One point, unless the 100 m square happens to straddle a cell edge (then two).
        XCTAssertLessThanOrEqual(points.count, 2)
        XCTAssertGreaterThan(points.count, 0)
        // The truth is always inside the reported radius, and the radius covers a cell.
        for point in points { XCTAssertLessThanOrEqual(FastDistance.meters(point, testBase), approx.haccMeters + 80) }
        XCTAssertGreaterThanOrEqual(approx.haccMeters, approx.cellSizeMeters / 2 * 2.0.squareRoot())
    }

    func testPointChangesBetweenPeriodsAndDependsOnSecret() {
        let approx = ApproximateLocation(secret: secret)
        let a = approx.reduce(testBase, device: "phone", t: testEpoch)
        let b = approx.reduce(testBase, device: "phone", t: testEpoch + 900)
        XCTAssertNotEqual(a, b)
        let other = ApproximateLocation(secret: Array("another secret, also long enough".utf8))
        XCTAssertNotEqual(other.reduce(testBase, device: "phone", t: testEpoch), a)
        XCTAssertNotEqual(approx.reduce(testBase, device: "tablet", t: testEpoch), a)
    }

    /// An observer averages every approximate point of a day (96 periods) for a device that
    /// does not move. Over many places the average must stay at least half a cell radius away.
    func testAveragingOverADayDoesNotRecoverThePosition() {
        let approx = ApproximateLocation(secret: secret)
        let cellRadius = approx.cellSizeMeters / 2 * 2.0.squareRoot()
        var random = SeededGenerator(seed: 99)
        var errors: [Double] = []
        for place in 0..<120 {
            let truth = offset(testBase, east: Double.random(in: -20_000...20_000, using: &random),
                               north: Double.random(in: -20_000...20_000, using: &random))
            var sumEast = 0.0, sumNorth = 0.0
            let plane = LocalTangentPlane(origin: truth)
            for period in 0..<96 {
                let point = approx.reduce(truth, device: "device-\(place)", t: testEpoch + Double(period) * 900)
                let (east, north) = plane.project(point)
                sumEast += east
                sumNorth += north
            }
            errors.append(hypot(sumEast / 96, sumNorth / 96))
        }
        let meanError = errors.reduce(0, +) / Double(errors.count)
        XCTAssertGreaterThanOrEqual(meanError, cellRadius / 2, "mean error \(meanError) m")
        // A stable-grid scheme cannot be beaten by averaging: the average error equals the
        // single-cell error (about 0.38 of the cell side), not the shrinking error of a dithered grid.
        XCTAssertGreaterThan(meanError, 0.3 * approx.cellSizeMeters)
    }

    func testApproxMessageIsStripped() {
        var configuration = FusionConfiguration()
        configuration.approx = ApproximateLocation(secret: secret)
        var logic = FusionLogic(configuration: configuration)
        let raw = Location(device: "phone", source: "gps", lat: 37.4, lon: -122.1, hacc: 4, alt: 30, vacc: 5, speed: 3,
                           speedAcc: 0.5, course: 90, courseAcc: 5, mode: "3d", sats: 9, hdop: 0.9)
        let out = logic.receive(Message(body: .location(raw), id: "x", t: testEpoch, src: "test"), topic: "location.raw.phone", now: testEpoch)
        let approx = out.first { $0.topic == "location.approx.phone" }
        guard case .location(let location)? = approx?.body else { return XCTFail("no approx message") }
        XCTAssertEqual(location.mode, "approx")
        XCTAssertNil(location.alt); XCTAssertNil(location.vacc); XCTAssertNil(location.speed); XCTAssertNil(location.speedAcc)
        XCTAssertNil(location.course); XCTAssertNil(location.courseAcc); XCTAssertNil(location.sats); XCTAssertNil(location.hdop)
        XCTAssertGreaterThanOrEqual(location.hacc, 2_500 / 2 * 2.0.squareRoot())
        XCTAssertEqual(location.tier, "insufficient")
        // A second fix in the same period and cell publishes no new approx message.
        let again = Location(device: "phone", source: "gps", lat: 37.40001, lon: -122.1, hacc: 4)
        let out2 = logic.receive(Message(body: .location(again), id: "y", t: testEpoch + 1, src: "test"), topic: "location.raw.phone", now: testEpoch + 1)
        XCTAssertFalse(out2.contains { $0.topic == "location.approx.phone" })
    }

    func testSecretFileIsCreatedPrivateAndReused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locus-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("approx.secret").path
        let first = try ApproxSecret.loadOrCreate(path: path)
        XCTAssertTrue(first.created)
        XCTAssertEqual(first.secret.count, 32)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        let second = try ApproxSecret.loadOrCreate(path: path)
        XCTAssertFalse(second.created)
        XCTAssertEqual(second.secret, first.secret)
    }
}

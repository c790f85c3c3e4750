import LocusGeo
import LocusGeofence
import LocusProtocol
import XCTest

/// Validation, widening, quota, replacement and the spatial lookup of `RegionStore`.
final class RegionStoreTests: XCTestCase {
    private let center = GeoPoint(lon: 121.4737, lat: 31.2304)

    private func circle(_ id: String, radius: Double, at point: GeoPoint? = nil) -> Region {
        Region(id: id, shape: .circle(center: point ?? center, radius: radius))
    }

    func testSmallCircleIsWidenedAndReportsItsEffectiveRadius() throws {
        var store = RegionStore(configuration: GeofenceConfiguration())
        let added = try store.add(circle("a", radius: 30), owner: "o")
        XCTAssertEqual(added.monitored.effectiveRadiusMeters, 100)
        guard case .circle(let shape) = added.monitored.shape else { return XCTFail("expected a circle") }
        XCTAssertEqual(shape.radiusMeters, 100)
        XCTAssertNil(try store.add(circle("b", radius: 150), owner: "o").monitored.effectiveRadiusMeters)
    }

    func testRadiusLimitsAndInvalidShapesFail() {
        var store = RegionStore(configuration: GeofenceConfiguration())
        XCTAssertThrowsError(try store.add(circle("big", radius: 200_000), owner: "o")) { error in
            XCTAssertEqual((error as? RegionRejection)?.code, .radiusTooLarge)
        }
        XCTAssertThrowsError(try store.add(circle("zero", radius: 0), owner: "o")) { error in
            XCTAssertEqual((error as? RegionRejection)?.code, .radiusTooSmall)
        }
        let bowTie = Region(id: "bow", shape: .polygon([[GeoPoint(lon: 0, lat: 0), GeoPoint(lon: 1, lat: 1),
                                                         GeoPoint(lon: 1, lat: 0), GeoPoint(lon: 0, lat: 1), GeoPoint(lon: 0, lat: 0)]]))
        XCTAssertThrowsError(try store.add(bowTie, owner: "o")) { error in
            XCTAssertEqual((error as? RegionRejection)?.code, .invalidShape)
        }
        XCTAssertEqual(store.count, 0)
    }

    func testQuotaCountsDistinctIdsAndReplacementIsFree() throws {
        var configuration = GeofenceConfiguration()
        configuration.regionsPerOwner = 2
        var store = RegionStore(configuration: configuration)
        _ = try store.add(circle("a", radius: 200), owner: "o")
        _ = try store.add(circle("b", radius: 200), owner: "o")
        let replaced = try store.add(circle("b", radius: 300), owner: "o")
        XCTAssertTrue(replaced.replaced)
        XCTAssertTrue(replaced.changed)
        let same = try store.add(circle("b", radius: 300), owner: "o")
        XCTAssertFalse(same.changed)
        XCTAssertEqual(same.monitored.generation, replaced.monitored.generation)
        XCTAssertThrowsError(try store.add(circle("c", radius: 200), owner: "o")) { error in
            XCTAssertEqual((error as? RegionRejection)?.code, .tooManyRegions)
        }
        _ = try store.add(circle("c", radius: 200), owner: "someone-else")
        store.remove(RegionKey(owner: "o", id: "a"))
        _ = try store.add(circle("c", radius: 200), owner: "o")
        XCTAssertEqual(store.regions(of: "o").map(\.key.id), ["b", "c"])
    }

    func testCandidatesFindNearRegionsOnlyAndMissNoneWithinTheMargin() throws {
        var store = RegionStore(configuration: GeofenceConfiguration())
        var random = SeededGenerator(seed: 7)
        let plane = LocalTangentPlane(origin: Coordinate(lat: center.lat, lon: center.lon))
        var circles: [RegionKey: Circle] = [:]
        for number in 0..<2000 {
            let c = plane.unproject(east: Double.random(in: -20_000...20_000, using: &random),
                                    north: Double.random(in: -20_000...20_000, using: &random))
            let radius = Double.random(in: 100...800, using: &random)
            let added = try store.add(circle("r\(number)", radius: radius, at: GeoPoint(lon: c.lon, lat: c.lat)), owner: "o")
            circles[added.monitored.key] = Circle(center: c, radiusMeters: radius)
        }
        var found: [RegionKey] = []
        for _ in 0..<500 {
            let p = plane.unproject(east: Double.random(in: -20_000...20_000, using: &random),
                                    north: Double.random(in: -20_000...20_000, using: &random))
            for margin in [5.0, 1_000.0] {
                found.removeAll()
                store.candidates(near: p, marginMeters: margin, into: &found)
                let returned = Set(found)
                XCTAssertLessThan(returned.count, 100)
                for (key, shape) in circles where shape.signedDistance(p) <= margin {
                    XCTAssertTrue(returned.contains(key), "missed \(key.id) at margin \(margin)")
                }
            }
        }
    }
}

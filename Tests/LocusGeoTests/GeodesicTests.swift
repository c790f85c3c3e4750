import LocusGeo
import XCTest

/// Checks `Geodesic` against GeographicLib's own answers (Fixtures/geodesic_vectors.csv,
/// written by Fixtures/make_vectors.py).
final class GeodesicTests: XCTestCase {
    private struct Vector {
        var kind: String
        var start: Coordinate, end: Coordinate
        var azimuth1: Double, azimuth2: Double, distance: Double
    }

    private func vectors() throws -> [Vector] {
        try TestSupport.csvRows("geodesic_vectors.csv").map { row in
            func value(_ key: String) throws -> Double {
                try XCTUnwrap(row[key].flatMap(Double.init), "column \(key)")
            }
            return Vector(
                kind: row["kind"] ?? "",
                start: Coordinate(lat: try value("lat1"), lon: try value("lon1")),
                end: Coordinate(lat: try value("lat2"), lon: try value("lon2")),
                azimuth1: try value("azi1"), azimuth2: try value("azi2"), distance: try value("s12")
            )
        }
    }

    func testFixtureCoversEveryKindOfPair() throws {
        let kinds = Set(try vectors().map(\.kind))
        XCTAssertEqual(kinds, ["random", "short", "equatorial", "meridional", "antipodal", "pole", "antimeridian", "near-antipode"])
        XCTAssertGreaterThan(try vectors().count, 400)
    }

    func testInverseMatchesGeographicLibWithinOneMillimetre() throws {
        for v in try vectors() {
            let line = Geodesic.inverse(v.start, v.end)
            XCTAssertLessThan(abs(line.distanceMeters - v.distance), 1e-3, "\(v.kind) \(v.start) → \(v.end)")
            XCTAssertEqual(line.distanceMeters, Geodesic.distance(v.start, v.end))
            XCTAssertTrue((0..<360).contains(line.azimuth1Degrees) && (0..<360).contains(line.azimuth2Degrees))
            XCTAssertLessThan(TestSupport.angleDifference(line.azimuth1Degrees, v.azimuth1), 1e-6, "\(v.kind) azi1 \(v.start) → \(v.end)")
            XCTAssertLessThan(TestSupport.angleDifference(line.azimuth2Degrees, v.azimuth2), 1e-6, "\(v.kind) azi2 \(v.start) → \(v.end)")
            XCTAssertEqual(Geodesic.azimuth(from: v.start, to: v.end), line.azimuth1Degrees)
        }
    }

    func testDirectMatchesGeographicLibWithinOneMillimetre() throws {
        for v in try vectors() {
            let end = Geodesic.destination(from: v.start, azimuthDegrees: v.azimuth1, distanceMeters: v.distance)
            XCTAssertTrue(end.isValid, "\(end)")
            XCTAssertLessThan(Geodesic.distance(end, v.end), 1e-3, "\(v.kind) from \(v.start) az \(v.azimuth1) s \(v.distance)")
        }
    }

    func testKnownDistanceAndSymmetry() {
        // One degree of longitude on the equator is a · π / 180 exactly.
        let a = Coordinate(lat: 0, lon: 10), b = Coordinate(lat: 0, lon: 11)
        XCTAssertEqual(Geodesic.distance(a, b), 6_378_137 * Double.pi / 180, accuracy: 1e-6)
        XCTAssertEqual(Geodesic.azimuth(from: a, to: b), 90, accuracy: 1e-9)
        XCTAssertEqual(Geodesic.azimuth(from: b, to: a), 270, accuracy: 1e-9)
        XCTAssertEqual(Geodesic.distance(a, a), 0)
        let c = Coordinate(lat: 51.5, lon: -0.1), d = Coordinate(lat: 48.85, lon: 2.35)
        XCTAssertEqual(Geodesic.distance(c, d), Geodesic.distance(d, c), accuracy: 1e-9)
    }

    func testDestinationNormalisesLongitudeAcrossTheAntimeridian() {
        let end = Geodesic.destination(from: Coordinate(lat: 0, lon: 179.999), azimuthDegrees: 90, distanceMeters: 1000)
        XCTAssertTrue((-180...(-179.99)).contains(end.lon), "\(end)")
        XCTAssertEqual(Geodesic.distance(Coordinate(lat: 0, lon: 179.999), end), 1000, accuracy: 1e-6)
    }
}

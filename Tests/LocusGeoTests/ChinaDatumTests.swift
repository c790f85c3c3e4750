import LocusGeo
import XCTest

final class ChinaDatumTests: XCTestCase {
    /// The public eviltransform test vectors: (WGS-84 lat, lon) → (GCJ-02 lat, lon).
    let gcjVectors: [(wgs: Coordinate, gcj: Coordinate)] = [
        (Coordinate(lat: 31.1774276, lon: 121.5272106), Coordinate(lat: 31.17530398364597, lon: 121.531541859215)),
        (Coordinate(lat: 22.543847, lon: 113.912316), Coordinate(lat: 22.540796131694766, lon: 113.9171764808363)),
        (Coordinate(lat: 39.911954, lon: 116.377817), Coordinate(lat: 39.91334545536069, lon: 116.38404722455657)),
    ]
    func testForwardTransformMatchesPublicVectorsTo1e9Degrees() {
        for vector in gcjVectors {
            let gcj = MapDatum.wgs84.convert(vector.wgs, to: .gcj02)
            XCTAssertEqual(gcj.lat, vector.gcj.lat, accuracy: 1e-9)
            XCTAssertEqual(gcj.lon, vector.gcj.lon, accuracy: 1e-9)
        }
    }

    func testBaiduOffsetFollowsThePublishedFormula() {
        // BD-09 = GCJ-02 rotated by 3e-6 rad·cos(lon·k), scaled by 2e-5·sin(lat·k), shifted by (0.006, 0.0065).
        let gcj = Coordinate(lat: 39.9, lon: 116.4)
        let bd = BD09.fromGCJ02(gcj)
        let k = Double.pi * 3000 / 180
        let r = (gcj.lon * gcj.lon + gcj.lat * gcj.lat).squareRoot() + 0.00002 * sin(gcj.lat * k)
        let angle = atan2(gcj.lat, gcj.lon) + 0.000003 * cos(gcj.lon * k)
        XCTAssertEqual(bd.lat, r * sin(angle) + 0.006, accuracy: 1e-12)
        XCTAssertEqual(bd.lon, r * cos(angle) + 0.0065, accuracy: 1e-12)
        XCTAssertEqual(BD09.toGCJ02(bd).lat, gcj.lat, accuracy: 1e-10)
        XCTAssertEqual(BD09.toGCJ02(bd).lon, gcj.lon, accuracy: 1e-10)
    }

    func testIterativeInverseIsExactToACentimetre() {
        var generator = SeededGenerator(seed: 7)
        for vector in gcjVectors {
            let back = MapDatum.gcj02.convert(vector.gcj, to: .wgs84)
            XCTAssertLessThan(Geodesic.distance(back, vector.wgs), 0.01)
        }
        for _ in 0..<2_000 {
            let wgs = Coordinate(lat: Double.random(in: 18...53, using: &generator), lon: Double.random(in: 74...134, using: &generator))
            for datum in [MapDatum.gcj02, .bd09] {
                let there = MapDatum.wgs84.convert(wgs, to: datum)
                let back = datum.convert(there, to: .wgs84)
                XCTAssertLessThan(Geodesic.distance(back, wgs), 0.01, "\(datum) at \(wgs)")
            }
        }
    }

    func testOneStepInverseIsOnlyApproximate() {
        // Shows why the iteration exists: the common one-step inverse is off by metres.
        let vector = gcjVectors[0]
        let rough = GCJ02.toWGS84(vector.gcj, maximumIterations: 1)
        XCTAssertGreaterThan(Geodesic.distance(rough, vector.wgs), 0.05)
    }

    func testPointsOutsideChinaPassThroughUnchanged() {
        let zurich = Coordinate(lat: 47.3769, lon: 8.5417)
        for from in MapDatum.allCases where from != .bd09 {
            for to in MapDatum.allCases where to != .bd09 {
                XCTAssertEqual(from.convert(zurich, to: to), zurich)
            }
        }
        XCTAssertEqual(MapDatum.bd09.convert(zurich, to: .bd09), zurich)
    }
}

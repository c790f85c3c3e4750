import Foundation
import XCTest
@testable import LocusProvider

/// Every shared GPX file against values read once with an independent reader (Python's
/// `xml.etree.ElementTree`, times converted with `datetime.fromisoformat`): point counts
/// per kind, how many path points carry a time, and the first and last point to replay.
final class GPXRealFilesTests: XCTestCase {
    struct Point {
        var lat: Double
        var lon: Double
        var elevation: Double?
        var time: Double?
    }

    struct RealFile {
        var name: String
        var waypoints: Int
        var routePoints: Int
        var trackPoints: Int
        var timed: Int
        var first: Point
        var last: Point
    }

    static let files: [RealFile] = [
        RealFile(name: "cerknicko-jezero.gpx", waypoints: 7, routePoints: 0, trackPoints: 296, timed: 296,
                 first: Point(lat: 45.772175035, lon: 14.357659249, elevation: 542.320923, time: 1281018239.0),
                 last: Point(lat: 45.790873384, lon: 14.304442042, elevation: 562.508545, time: 1281025429.0)),
        RealFile(name: "korita-zbevnica.gpx", waypoints: 2, routePoints: 0, trackPoints: 871, timed: 513,
                 first: Point(lat: 45.380600095, lon: 14.144491442, elevation: 733.623291, time: nil),
                 last: Point(lat: 45.452453708, lon: 14.018215053, elevation: 770.634033, time: 1286111971.0)),
        RealFile(name: "route.gpx", waypoints: 0, routePoints: 55, trackPoints: 0, timed: 0,
                 first: Point(lat: 45.2787641494, lon: 13.726695478, elevation: nil, time: nil),
                 last: Point(lat: 45.2787783011, lon: 13.7266552448, elevation: nil, time: nil)),
        RealFile(name: "track-with-extremes.gpx", waypoints: 0, routePoints: 0, trackPoints: 25, timed: 0,
                 first: Point(lat: 45.484591697, lon: 13.507589780, elevation: 10.0, time: nil),
                 last: Point(lat: 45.480369370, lon: 13.520498463, elevation: 22.0, time: nil)),
        RealFile(name: "track_with_dilution_errors.gpx", waypoints: 1, routePoints: 1, trackPoints: 1, timed: 0,
                 first: Point(lat: 12.1, lon: 13.2, elevation: nil, time: nil),
                 last: Point(lat: 12.1, lon: 13.2, elevation: nil, time: nil)),
        RealFile(name: "track_with_speed.gpx", waypoints: 0, routePoints: 0, trackPoints: 3, timed: 3,
                 first: Point(lat: 52.330848, lon: 5.541371, elevation: 48.962041, time: 1236002752.0),
                 last: Point(lat: 52.331014, lon: 5.541333, elevation: 53.381747, time: 1236002765.0)),
        RealFile(name: "unicode_with_bom.gpx", waypoints: 1, routePoints: 0, trackPoints: 0, timed: 1,
                 first: Point(lat: 43.309634, lon: 3.515386, elevation: -14.6, time: 1464343727.8),
                 last: Point(lat: 43.309634, lon: 3.515386, elevation: -14.6, time: 1464343727.8)),
    ]

    func testEverySharedFileMatchesTheIndependentReading() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: ProviderTestData.sharedData.appendingPathComponent("gpx").path)
            .filter { $0.hasSuffix(".gpx") }
        XCTAssertEqual(Set(onDisk), Set(Self.files.map(\.name)), "a shared GPX file without expected values")
        for file in Self.files {
            let document = try GPXParser.parse(contentsOf: ProviderTestData.gpx(file.name).path)
            XCTAssertEqual(document.waypoints.count, file.waypoints, file.name)
            XCTAssertEqual(document.routes.flatMap { $0 }.count, file.routePoints, file.name)
            XCTAssertEqual(document.tracks.flatMap { $0 }.count, file.trackPoints, file.name)
            let path = document.path
            XCTAssertEqual(path.filter { $0.time != nil }.count, file.timed, file.name)
            try check(XCTUnwrap(path.first, file.name), against: file.first, "\(file.name) first")
            try check(XCTUnwrap(path.last, file.name), against: file.last, "\(file.name) last")
        }
    }

    private func check(_ point: GPXPoint, against expected: Point, _ label: String) {
        XCTAssertEqual(point.lat, expected.lat, label)
        XCTAssertEqual(point.lon, expected.lon, label)
        XCTAssertEqual(point.elevation, expected.elevation, label)
        switch (point.time, expected.time) {
        case let (time?, expectedTime?): XCTAssertEqual(time, expectedTime, accuracy: 1e-6, label)
        case (nil, nil): break
        default: XCTFail("\(label): time \(String(describing: point.time)), expected \(String(describing: expected.time))")
        }
    }
}

import LocusGeo
import LocusProtocol
import XCTest
@testable import LocusProvider

/// The engine behind the `wifi` and `cell` plugins, on a real (in-memory) SQLite database.
final class NetworkLocatorTests: XCTestCase {
    let here = Coordinate(lat: 52.52, lon: 13.405)

    func mac(_ text: String) -> MACAddress { MACAddress(text)! }

    func scan(_ entries: [(String, String?, Double)], age: Double? = nil) -> NetworkScan {
        NetworkScan(format: .iw, wifi: entries.map { WiFiObservation(bssid: mac($0.0), ssid: $0.1, signalDBm: $0.2, ageSeconds: age) })
    }

    func fused(_ coordinate: Coordinate, hacc: Double = 5, mode: String? = "3d", speed: Double? = nil, age: Double? = nil) -> Location {
        Location(device: "d", source: "fused", lat: coordinate.lat, lon: coordinate.lon, hacc: hacc, speed: speed, mode: mode, age: age)
    }

    func locator(learns: Bool = true, kind: BeaconKind = .wifi) throws -> NetworkLocator {
        var settings = NetworkLocator.Settings(kind: kind)
        settings.learns = learns
        return NetworkLocator(database: try BeaconDatabase(path: ":memory:"), settings: settings)
    }

    func testOptedOutAccessPointsAreNeverStored() throws {
        let locator = try locator()
        let heard = scan([("00:11:22:33:44:55", "Home", -60), ("00:11:22:33:44:66", "Cafe_nomap", -55), ("02:aa:bb:cc:dd:ee", "Pixel", -40),
                          ("da:a1:19:6b:3e:05", nil, -45)])
        XCTAssertNil(try locator.locate(heard, t: 100))
        XCTAssertEqual(try locator.learn(from: fused(here), t: 100), 1)
        XCTAssertNotNil(try locator.database.wifi(mac("00:11:22:33:44:55")))
        for other in ["00:11:22:33:44:66", "02:aa:bb:cc:dd:ee", "da:a1:19:6b:3e:05"] {
            XCTAssertNil(try locator.database.wifi(mac(other)), other)
        }
        XCTAssertEqual(locator.counters["optedOut"], 3)
        XCTAssertEqual(try locator.database.counts().wifi, 1)
    }

    func testOnlyGoodSatelliteFixesCloseInTimeTeach() throws {
        let locator = try locator()
        let heard = scan([("00:11:22:33:44:55", "Home", -60)])
        _ = try locator.locate(heard, t: 100)
        XCTAssertEqual(try locator.learn(from: fused(here, mode: "approx"), t: 100), 0, "a fix that rests on network positions")
        XCTAssertEqual(try locator.learn(from: fused(here, mode: "cache", age: 30), t: 100), 0)
        XCTAssertEqual(try locator.learn(from: fused(here, hacc: 25), t: 100), 0, "worse than --learn-hacc")
        XCTAssertEqual(try locator.learn(from: fused(here), t: 103), 0, "three seconds after the scan")
        XCTAssertEqual(try locator.learn(from: fused(here, speed: 16), t: 101), 0, "moved 16 m since the scan: 5 + 16 > 20")
        XCTAssertEqual(try locator.learn(from: fused(Coordinate(lat: .nan, lon: 0)), t: 100), 0)
        XCTAssertEqual(try locator.database.counts().wifi, 0)
        XCTAssertEqual(try locator.learn(from: fused(here, speed: 1), t: 101), 1)
        XCTAssertEqual(try locator.learn(from: fused(here), t: 100.5), 0, "a scan teaches once")
    }

    func testWithoutLearningNothingIsWrittenButGoodFixesStillHoldNetworkFixesBack() throws {
        let database = try BeaconDatabase(path: ":memory:")
        try database.putWifi(mac("00:11:22:33:44:55"), BeaconRecord(position: here, radius: 50, weight: 1, samples: 9, updated: 0))
        var settings = NetworkLocator.Settings(kind: .wifi)
        settings.learns = false
        let locator = NetworkLocator(database: database, settings: settings)
        let heard = scan([("00:11:22:33:44:55", "Home", -60), ("00:11:22:33:44:77", "New", -70)])
        let first = try XCTUnwrap(try locator.locate(heard, t: 10))
        XCTAssertFalse(first.heldBack)
        XCTAssertEqual(first.location.source, "wifi")
        XCTAssertEqual(first.location.mode, "approx")
        XCTAssertEqual(try locator.learn(from: fused(here), t: 10), 0)
        XCTAssertNil(try database.wifi(mac("00:11:22:33:44:77")))
        XCTAssertTrue(try XCTUnwrap(try locator.locate(heard, t: 13)).heldBack, "a good satellite fix 3 s ago")
        XCTAssertFalse(try XCTUnwrap(try locator.locate(heard, t: 16)).heldBack)
    }

    func testUnknownAndStaleAccessPointsGiveNoFixAndAreCounted() throws {
        let locator = try locator()
        XCTAssertNil(try locator.locate(scan([("00:11:22:33:44:55", nil, -60)]), t: 1))
        XCTAssertEqual(locator.counters["unknownScans"], 1)
        try locator.database.putWifi(mac("00:11:22:33:44:55"), BeaconRecord(position: here, radius: 50, weight: 1, samples: 9, updated: 0))
        XCTAssertNil(try locator.locate(scan([("00:11:22:33:44:55", nil, -60)], age: 25), t: 2), "iw last heard it 25 s ago")
        XCTAssertEqual(locator.counters["stale"], 1)
        XCTAssertNotNil(try locator.locate(scan([("00:11:22:33:44:55", nil, -60)], age: 2), t: 3))
    }

    func testMobileBeaconsAreLeftOut() throws {
        let locator = try locator()
        try locator.database.putWifi(mac("00:11:22:33:44:55"), BeaconRecord(position: here, radius: 50, weight: 1, samples: 9, moves: 2, updated: 0))
        XCTAssertNil(try locator.locate(scan([("00:11:22:33:44:55", nil, -50)]), t: 1))
    }

    func testCellsAreFoundUnderTheRadioTheirAreaCodeImplies() throws {
        let locator = try locator(kind: .cell)
        let lte = CellIdentity(radio: .lte, mcc: 262, mnc: 2, area: 0xA1B2, cell: 0x01A2_B3C4)
        try locator.database.putCell(lte, BeaconRecord(position: here, radius: 1_200, weight: 1, samples: 40, updated: 0))
        let observed = NetworkScan(format: .mmcli, cells: [CellObservation(mcc: 262, mnc: 2, lac: nil, tac: 0xA1B2, cell: 0x01A2_B3C4)])
        let fix = try XCTUnwrap(try locator.locate(observed, t: 5))
        XCTAssertEqual(fix.location.source, "cell")
        XCTAssertEqual(fix.used, [.cell(lte)])
        XCTAssertLessThan(Geodesic.distance(here, Coordinate(lat: fix.location.lat, lon: fix.location.lon)), 0.01)
        // A GSM cell is learned under the most likely radio for its LAC and cell id.
        let gsm = NetworkScan(format: .mmcli, cells: [CellObservation(mcc: 262, mnc: 1, lac: 21004, tac: nil, cell: 4437)])
        XCTAssertNil(try locator.locate(gsm, t: 20))
        XCTAssertEqual(try locator.learn(from: fused(here, hacc: 8), t: 20), 1)
        XCTAssertNotNil(try locator.database.cell(CellIdentity(radio: .gsm, mcc: 262, mnc: 1, area: 21004, cell: 4437)))
    }
}

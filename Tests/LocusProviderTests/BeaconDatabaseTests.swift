import Foundation
import LocusGeo
import XCTest
@testable import LocusProvider

/// The database file: private by mode, never created when it must exist, readable again.
final class BeaconDatabaseTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "beacons-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    func testCreatedPrivateInAPrivateDirectoryAndReadBack() throws {
        let path = directory + "/nested/beacons.db"
        let bssid = MACAddress("00:11:22:33:44:55")!
        let record = BeaconRecord(position: Coordinate(lat: 52.5, lon: 13.4), radius: 42, weight: 0.5, samples: 3, moves: 1, updated: 1_700_000_000)
        do {
            let database = try BeaconDatabase(path: path)
            try database.putWifi(bssid, record)
        }
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try mode(directory + "/nested"), 0o700)
        let reopened = try BeaconDatabase(path: path, mustExist: true)
        XCTAssertEqual(try reopened.wifi(bssid), record)
        XCTAssertFalse(reopened.tightenedPermissions)
    }

    func testAFileOthersCanReadIsTightened() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/beacons.db"
        _ = try BeaconDatabase(path: path)
        chmod(path, 0o644)
        let reopened = try BeaconDatabase(path: path)
        XCTAssertTrue(reopened.tightenedPermissions)
        XCTAssertEqual(try mode(path), 0o600)
    }

    func testMustExistRefusesToCreateAndSaysWhatToDo() {
        XCTAssertThrowsError(try BeaconDatabase(path: directory + "/missing.db", mustExist: true)) { error in
            XCTAssertTrue((error as? BeaconDatabaseError)?.message.contains("import-cells") ?? false)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/missing.db"))
    }

    func testNotADatabaseIsAClearError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/text.db"
        try Data(String(repeating: "not sqlite\n", count: 200).utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        XCTAssertThrowsError(try BeaconDatabase(path: path)) { error in
            XCTAssertTrue((error as? BeaconDatabaseError)?.message.contains(path) ?? false, "\(error)")
        }
    }

    func testImportKeepsTheRecordWithMoreEvidence() throws {
        let database = try BeaconDatabase(path: ":memory:")
        let cell = CellIdentity(radio: .lte, mcc: 262, mnc: 1, area: 1, cell: 2)
        let learned = BeaconRecord(position: Coordinate(lat: 1, lon: 1), radius: 900, weight: 1, samples: 80, updated: 5)
        try database.putCell(cell, learned)
        try database.importCell(cell, BeaconRecord(position: Coordinate(lat: 2, lon: 2), radius: 500, weight: 1, samples: 10, updated: 6))
        XCTAssertEqual(try database.cell(cell), learned)
        let better = BeaconRecord(position: Coordinate(lat: 3, lon: 3), radius: 400, weight: 2, samples: 200, updated: 7)
        try database.importCell(cell, better)
        XCTAssertEqual(try database.cell(cell), better)
    }
}

import Foundation
import LocusGeofence
import LocusProtocol
import LocusStore
import XCTest

/// A database written before tracks were keyed region first still opens with every
/// (device, region) state it held, and the old table and its index are gone afterwards.
final class TracksTableMigrationTests: XCTestCase {
    func testEarlierTracksTableIsMovedOnce() throws {
        let path = NSTemporaryDirectory() + "locus-migrate-\(getpid())-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute("""
                CREATE TABLE regions (owner TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, generation INTEGER NOT NULL,
                    PRIMARY KEY (owner, id));
                CREATE TABLE tracks (
                    device TEXT NOT NULL, owner TEXT NOT NULL, region TEXT NOT NULL, generation INTEGER NOT NULL,
                    state TEXT NOT NULL, cause TEXT NOT NULL, entered_at REAL, dwell_fired INTEGER NOT NULL,
                    PRIMARY KEY (device, owner, region)) WITHOUT ROWID;
                CREATE INDEX tracks_by_region ON tracks (owner, region);
                CREATE TABLE devices (device TEXT PRIMARY KEY, checked_through INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO tracks VALUES ('truck-1', 'acme', 'yard', 4, 'inside', 'crossing', 1790000000.5, 1);
                INSERT INTO tracks VALUES ('truck-2', 'acme', 'yard', 4, 'outside', 'recovered', NULL, 0);
                INSERT INTO devices VALUES ('truck-1', 4);
                """)
        }
        let database = try GeofenceDatabase(path: path)
        let snapshot = try database.load()
        let tracks = snapshot.tracks.sorted { $0.device < $1.device }
        XCTAssertEqual(tracks, [
            PersistedTrack(device: "truck-1", key: RegionKey(owner: "acme", id: "yard"), generation: 4, state: .inside,
                           entryCause: .crossing, enteredAt: 1_790_000_000.5, dwellFired: true),
            PersistedTrack(device: "truck-2", key: RegionKey(owner: "acme", id: "yard"), generation: 4, state: .outside,
                           entryCause: .recovered, enteredAt: nil, dwellFired: false),
        ])
        XCTAssertEqual(snapshot.devices, ["truck-1": 4])

        let check = try SQLiteDatabase(path: path)
        let names = try check.query("SELECT name FROM sqlite_master WHERE name IN ('tracks', 'tracks_by_region') ORDER BY name")
        XCTAssertTrue(names.isEmpty, "left behind: \(names)")
        // Opening again finds nothing to move and loses nothing.
        XCTAssertEqual(try GeofenceDatabase(path: path).load().tracks.count, 2)
    }
}

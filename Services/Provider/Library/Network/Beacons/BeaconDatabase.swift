import Foundation
import Glibc
import LocusGeo
import LocusStore

/// The local beacon database: Wi-Fi access points (by BSSID) and cells (by radio, MCC, MNC,
/// area, cell id), each with a position, a coverage radius and the evidence behind them.
/// One SQLite file, created with mode 0600 (its directory 0700) and tightened to 0600 if
/// found looser: where someone's access points are says where they have been. Nothing
/// else is stored: no SSIDs, no signal levels, no times of single observations, no tracks.
///
/// One connection, owned by one thread (the network source's, or an import's).
public final class BeaconDatabase {
    public let path: String
    let database: SQLiteDatabase
    /// True when an existing file was readable by others and its mode was set to 0600.
    public private(set) var tightenedPermissions = false

    /// The default location: `$XDG_DATA_HOME/locus/beacons.db`, else `~/.local/share/locus/beacons.db`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/locus/beacons.db"
    }

    /// Opens (creating when missing, unless `mustExist`) the database at `path`; `:memory:`
    /// gives a private in-memory one.
    public init(path: String, mustExist: Bool = false) throws(BeaconDatabaseError) {
        self.path = path
        if path != ":memory:" {
            tightenedPermissions = try Self.prepareFile(path, mustExist: mustExist)
        }
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute("""
                PRAGMA journal_mode = WAL;
                PRAGMA synchronous = NORMAL;
                CREATE TABLE IF NOT EXISTS wifi (
                    bssid INTEGER PRIMARY KEY,
                    lat REAL NOT NULL, lon REAL NOT NULL, radius REAL NOT NULL,
                    weight REAL NOT NULL, samples INTEGER NOT NULL, moves INTEGER NOT NULL, updated REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS cell (
                    radio INTEGER NOT NULL, mcc INTEGER NOT NULL, mnc INTEGER NOT NULL, area INTEGER NOT NULL, cell INTEGER NOT NULL,
                    lat REAL NOT NULL, lon REAL NOT NULL, radius REAL NOT NULL,
                    weight REAL NOT NULL, samples INTEGER NOT NULL, moves INTEGER NOT NULL, updated REAL NOT NULL,
                    PRIMARY KEY (radio, mcc, mnc, area, cell)) WITHOUT ROWID;
                PRAGMA user_version = 1;
                """)
        } catch {
            throw BeaconDatabaseError("beacon database \(path): \(error.message)")
        }
    }

    /// Creates the directory (0700) and file (0600) when missing; sets an existing file to
    /// 0600 when others could read it. Returns whether it had to tighten the mode.
    static func prepareFile(_ path: String, mustExist: Bool) throws(BeaconDatabaseError) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & 0o077 != 0 else { return false }
            guard chmod(path, 0o600) == 0 else {
                throw BeaconDatabaseError("beacon database \(path) is readable by others and cannot be set to 0600: \(String(cString: strerror(errno)))")
            }
            return true
        }
        if mustExist { throw BeaconDatabaseError("no beacon database at \(path) (import cells with `locus beacons import-cells`, or run once with learning)") }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw BeaconDatabaseError("cannot create \(directory): \(error.localizedDescription)")
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BeaconDatabaseError("cannot create beacon database \(path): \(String(cString: strerror(errno)))") }
        close(fd)
        return false
    }

    // MARK: Wi-Fi

    public func wifi(_ bssid: MACAddress) throws(BeaconDatabaseError) -> BeaconRecord? {
        try record("SELECT lat, lon, radius, weight, samples, moves, updated FROM wifi WHERE bssid = ?", [.integer(Int64(bssid.value))])
    }

    public func putWifi(_ bssid: MACAddress, _ record: BeaconRecord) throws(BeaconDatabaseError) {
        try write("""
            INSERT OR REPLACE INTO wifi (bssid, lat, lon, radius, weight, samples, moves, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(Int64(bssid.value))] + values(record))
    }

    // MARK: Cells

    public func cell(_ identity: CellIdentity) throws(BeaconDatabaseError) -> BeaconRecord? {
        try record("""
            SELECT lat, lon, radius, weight, samples, moves, updated FROM cell
            WHERE radio = ? AND mcc = ? AND mnc = ? AND area = ? AND cell = ?
            """, key(identity))
    }

    public func putCell(_ identity: CellIdentity, _ record: BeaconRecord) throws(BeaconDatabaseError) {
        try write("""
            INSERT OR REPLACE INTO cell (radio, mcc, mnc, area, cell, lat, lon, radius, weight, samples, moves, updated)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, key(identity) + values(record))
    }

    /// Stores an imported cell unless the database already holds more evidence for it.
    public func importCell(_ identity: CellIdentity, _ record: BeaconRecord) throws(BeaconDatabaseError) {
        try write("""
            INSERT INTO cell (radio, mcc, mnc, area, cell, lat, lon, radius, weight, samples, moves, updated)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (radio, mcc, mnc, area, cell) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,
                radius = excluded.radius, weight = excluded.weight, samples = excluded.samples, updated = excluded.updated
            WHERE excluded.samples >= cell.samples
            """, key(identity) + values(record))
    }

    // MARK: Whole database

    /// Settings for a bulk import on this connection: a page cache of `cacheMegabytes` (a
    /// fixed bound, so memory stays flat however long the file) and no sync at each commit
    /// (an import cut short by a crash loses its last batches, never the database).
    public func prepareForBulkImport(cacheMegabytes: Int = 16) throws(BeaconDatabaseError) {
        do { try database.execute("PRAGMA cache_size = -\(cacheMegabytes * 1024); PRAGMA synchronous = OFF;") } catch {
            throw BeaconDatabaseError("beacon database \(path): \(error.message)")
        }
    }

    /// Runs `body` in one write transaction (one commit for a whole scan or import batch).
    public func transaction<T>(_ body: () throws(BeaconDatabaseError) -> T) throws(BeaconDatabaseError) -> T {
        var inner: BeaconDatabaseError?
        do throws(SQLiteError) {
            return try database.transaction { () throws(SQLiteError) -> T in
                do throws(BeaconDatabaseError) { return try body() } catch {
                    inner = error
                    throw SQLiteError(message: error.message)
                }
            }
        } catch {
            throw inner ?? BeaconDatabaseError("beacon database \(path): \(error.message)")
        }
    }

    /// How many access points and cells are stored, and how many of them are mobile.
    public func counts() throws(BeaconDatabaseError) -> (wifi: Int, cells: Int, mobile: Int) {
        do {
            let wifi = try database.query("SELECT count(*), coalesce(sum(moves >= 2), 0) FROM wifi").first ?? []
            let cells = try database.query("SELECT count(*), coalesce(sum(moves >= 2), 0) FROM cell").first ?? []
            let number = { (row: [SQLiteValue], index: Int) in index < row.count ? Int(row[index].int ?? 0) : 0 }
            return (number(wifi, 0), number(cells, 0), number(wifi, 1) + number(cells, 1))
        } catch {
            throw BeaconDatabaseError("beacon database \(path): \(error.message)")
        }
    }

    // MARK: Helpers

    private func key(_ identity: CellIdentity) -> [SQLiteValue] {
        [.integer(Int64(identity.radio.rawValue)), .integer(Int64(identity.mcc)), .integer(Int64(identity.mnc)),
         .integer(Int64(identity.area)), .integer(identity.cell)]
    }

    private func values(_ record: BeaconRecord) -> [SQLiteValue] {
        [.real(record.position.lat), .real(record.position.lon), .real(record.radius), .real(record.weight),
         .integer(Int64(record.samples)), .integer(Int64(record.moves)), .real(record.updated)]
    }

    private func record(_ sql: String, _ values: [SQLiteValue]) throws(BeaconDatabaseError) -> BeaconRecord? {
        var found: BeaconRecord?
        do {
            try database.run(sql, values) { row in
                found = BeaconRecord(position: Coordinate(lat: row.real(0) ?? 0, lon: row.real(1) ?? 0), radius: row.real(2) ?? 0,
                                     weight: row.real(3) ?? 0, samples: row.integer(4), moves: row.integer(5), updated: row.real(6) ?? 0)
            }
        } catch {
            throw BeaconDatabaseError("beacon database \(path): \(error.message)")
        }
        return found
    }

    private func write(_ sql: String, _ values: [SQLiteValue]) throws(BeaconDatabaseError) {
        do { try database.run(sql, values) } catch {
            throw BeaconDatabaseError("beacon database \(path): \(error.message)")
        }
    }
}

import Foundation
import LocusProtocol
import LocusService
public import LocusStore

/// The geofence's durable state in SQLite (WAL): regions as clients defined them, and the
/// committed state of each (device, region) pair, so a restarted service — even after
/// kill -9 — knows what it last reported and reports only what it missed.
///
/// WAL with `synchronous=NORMAL` keeps each batch one append to the log; a batch is one
/// transaction, written before the events it explains are published.
///
/// A busy fleet changes rows all over the tracks table, and a commit writes every page it
/// touched, so the tables are clustered on their keys (`WITHOUT ROWID`: one B-tree per
/// row change instead of a rowid tree and a key index; tracks are keyed region first, so
/// removing a region deletes one key range and needs no second index), rows change by
/// upsert rather than delete-and-insert, an exit deletes its row (a missing row reads as
/// outside, so the table holds only inside states), the page cache holds a fleet's working set, and
/// the log is folded back into the database every few thousand pages rather than every
/// thousand, so a page rewritten by many commits is copied back once.
///
/// Every write failure is a `StorageFault` naming the file. A file removed while open (its
/// directory deleted) is noticed at the next commit (`SQLiteDatabase.hasMoved`), and
/// `repair()` writes it back from the open connection.
public final class GeofenceDatabase: GeofencePersistence {
    private var connection: SQLiteDatabase
    public let location: String

    public init(path: String) throws {
        location = path
        connection = try SQLiteDatabase(path: path)
        try Self.prepare(connection)
        try migrateTracksTable()
    }

    private static func prepare(_ connection: SQLiteDatabase) throws(SQLiteError) {
        try connection.execute("""
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=NORMAL;
            PRAGMA busy_timeout=5000;
            PRAGMA cache_size=-8192;
            PRAGMA wal_autocheckpoint=8000;
            CREATE TABLE IF NOT EXISTS regions (
                owner TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, generation INTEGER NOT NULL,
                PRIMARY KEY (owner, id));
            CREATE TABLE IF NOT EXISTS region_tracks (
                owner TEXT NOT NULL, region TEXT NOT NULL, device TEXT NOT NULL, generation INTEGER NOT NULL,
                state TEXT NOT NULL, cause TEXT NOT NULL, entered_at REAL, dwell_fired INTEGER NOT NULL,
                PRIMARY KEY (owner, region, device)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS devices (device TEXT PRIMARY KEY, checked_through INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS kept_messages (position INTEGER PRIMARY KEY, topic TEXT NOT NULL, body TEXT NOT NULL);
            """)
    }

    /// Rewrites the database header's user version (unused otherwise): one page appended to
    /// the log, so it fails as a real batch would on a full or read-only disk.
    public func probe() throws {
        do {
            try connection.transaction { () throws(SQLiteError) in
                let version = try connection.query("PRAGMA user_version").first?.first?.int ?? 0
                try connection.execute("PRAGMA user_version = \(version)")
            }
        } catch {
            throw StorageFault(error, path: location)
        }
    }

    public func prepareRetry(after fault: StorageFault) throws {
        if connection.hasMoved {
            try restoreFile()
        } else if fault.kind == .full {
            // The log only grows until a checkpoint, and on a small disk it is what filled it:
            // folded back and truncated, its space is free for the next commits.
            do { try connection.checkpoint(truncating: true) } catch { throw StorageFault(error, path: location) }
        }
    }

    /// After the directory was removed: creates it again, copies the database out of the open
    /// connection (which still reads the removed file) and reopens it there.
    private func restoreFile() throws {
        try StateFiles.createDirectory(StateFiles.directory(of: location))
        let copy = location + ".restore"
        unlink(copy)
        do { try connection.copy(to: copy) } catch { throw StorageFault(error, path: copy) }
        guard rename(copy, location) == 0 else { throw StorageFault(errno: errno, path: location, operation: "rename") }
        do {
            let reopened = try SQLiteDatabase(path: location)
            try Self.prepare(reopened)
            connection = reopened
        } catch {
            throw StorageFault(error, path: location)
        }
    }

    /// Databases written before `region_tracks` kept the same rows in `tracks`, keyed by
    /// device with a second index by region: moved over once, in one transaction.
    private func migrateTracksTable() throws(SQLiteError) {
        let old = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'tracks'")
        guard !old.isEmpty else { return }
        try connection.transaction { () throws(SQLiteError) in
            try connection.execute("""
                INSERT OR REPLACE INTO region_tracks (owner, region, device, generation, state, cause, entered_at, dwell_fired)
                    SELECT owner, region, device, generation, state, cause, entered_at, dwell_fired FROM tracks;
                DROP TABLE tracks;
                """)
        }
    }

    public func load() throws -> PersistedSnapshot {
        var snapshot = PersistedSnapshot()
        var broken: [String] = []
        try connection.run("SELECT owner, body, generation FROM regions") { row in
            let owner = row.text(0)
            if let message = try? MessageCodec.decode(row.text(1)), case .regionAdd(let add) = message.body {
                snapshot.regions.append(PersistedRegion(owner: owner, region: add.region, generation: row.integer(2)))
            } else {
                broken.append(owner)
            }
        }
        try connection.run("SELECT device, owner, region, generation, state, cause, entered_at, dwell_fired FROM region_tracks") { row in
            guard let state = RegionState(rawValue: row.text(4)), let cause = RegionEventCause(rawValue: row.text(5)) else { return }
            snapshot.tracks.append(PersistedTrack(
                device: row.text(0), key: RegionKey(owner: row.text(1), id: row.text(2)), generation: row.integer(3),
                state: state, entryCause: cause, enteredAt: row.real(6), dwellFired: row.integer(7) != 0))
        }
        try connection.run("SELECT device, checked_through FROM devices") { row in
            snapshot.devices[row.text(0)] = row.integer(1)
        }
        try connection.run("SELECT topic, body FROM kept_messages ORDER BY position") { row in
            if let message = try? MessageCodec.decode(row.text(1)) {
                snapshot.kept.append(KeptMessage(topic: row.text(0), message: message))
            }
        }
        return snapshot
    }

    public func apply(_ batch: PersistenceBatch) throws {
        do { try write(batch) } catch { throw StorageFault(error, path: location) }
    }

    private func write(_ batch: PersistenceBatch) throws(SQLiteError) {
        try connection.transaction { () throws(SQLiteError) in
            for key in batch.regionDeletes {
                try connection.run("DELETE FROM regions WHERE owner = ? AND id = ?", [.text(key.owner), .text(key.id)])
                try connection.run("DELETE FROM region_tracks WHERE owner = ? AND region = ?", [.text(key.owner), .text(key.id)])
            }
            for stored in batch.regionUpserts {
                let message = Message(body: .regionAdd(RegionAdd(owner: stored.owner, region: stored.region)),
                                      id: "stored", t: 0, src: "geofence/db")
                let body = String(decoding: MessageCodec.encode(message), as: UTF8.self)
                try connection.run("INSERT OR REPLACE INTO regions (owner, id, body, generation) VALUES (?, ?, ?, ?)",
                                   [.text(stored.owner), .text(stored.region.id), .text(body), .integer(Int64(stored.generation))])
            }
            for track in batch.trackUpserts {
                // Outside is what a missing row means for a device checked through the
                // region's generation (stored in this same transaction), so an exit deletes
                // the row: the table holds only the fleet's inside states, and a commit
                // rewrites fewer pages.
                if track.state == .outside {
                    try connection.run("DELETE FROM region_tracks WHERE owner = ? AND region = ? AND device = ?",
                                       [.text(track.key.owner), .text(track.key.id), .text(track.device)])
                    continue
                }
                try connection.run("""
                    INSERT INTO region_tracks (device, owner, region, generation, state, cause, entered_at, dwell_fired)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (owner, region, device) DO UPDATE SET generation = excluded.generation, state = excluded.state,
                        cause = excluded.cause, entered_at = excluded.entered_at, dwell_fired = excluded.dwell_fired
                    """,
                    [.text(track.device), .text(track.key.owner), .text(track.key.id), .integer(Int64(track.generation)),
                     .text(track.state.rawValue), .text(track.entryCause.rawValue),
                     track.enteredAt.map { .real($0) } ?? .null, .integer(track.dwellFired ? 1 : 0)])
            }
            if batch.clearsKept { try connection.run("DELETE FROM kept_messages") }
            for kept in batch.kept {
                try connection.run("INSERT INTO kept_messages (topic, body) VALUES (?, ?)",
                                   [.text(kept.topic), .text(String(decoding: MessageCodec.encode(kept.message), as: UTF8.self))])
            }
            for (device, checked) in batch.deviceUpserts {
                try connection.run("""
                    INSERT INTO devices (device, checked_through) VALUES (?, ?)
                    ON CONFLICT (device) DO UPDATE SET checked_through = excluded.checked_through
                    """,
                                   [.text(device), .integer(Int64(checked))])
            }
        }
    }
}

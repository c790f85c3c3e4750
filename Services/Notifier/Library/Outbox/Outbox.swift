public import Foundation
public import LocusStore
#if canImport(Glibc)
import Glibc
#endif

/// The durable outbox: every notification is committed here before any sink sees it,
/// and each sink keeps a cursor that moves only after a delivery succeeded or failed for
/// good. A restart, even after `kill -9`, resumes every sink at its cursor, so each sink
/// gets everything at least once and in order.
///
/// WAL with `synchronous=NORMAL`: a commit is an append to the log in the page cache, so it
/// survives the process crashing at any instant (the kernel holds it); only an OS crash or
/// power cut can lose the last commits, and the database stays consistent even then. FULL
/// added an fsync to every commit — on a shared disk, stalls of up to hundreds of
/// milliseconds on the event → notification path (measured by `locus bench pipeline`).
///
/// No commit checkpoints the log (`wal_autocheckpoint=0`): a checkpoint flushes the
/// database file to disk, which stalled the event that happened to trigger it by up to half a
/// second on a busy disk. `OutboxCheckpointer` checkpoints on its own thread instead, when
/// the log has grown (not on a short timer: the commit after each complete checkpoint
/// restarts the log and must flush its header to disk, so fewer checkpoints mean fewer
/// flushes on the event path).
///
/// One instance is one SQLite connection and belongs to one thread; other threads open
/// their own instance on the same directory.
public final class Outbox {
    public static let fileName = "outbox.sqlite"
    private var database: SQLiteDatabase
    public let path: String

    public init(directory: URL) throws(SQLiteError) {
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw SQLiteError(message: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        path = directory.appendingPathComponent(Self.fileName).path
        database = try SQLiteDatabase(path: path)
        try Self.prepare(database)
    }

    private static func prepare(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.execute("""
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=NORMAL;
            PRAGMA wal_autocheckpoint=0;
            CREATE TABLE IF NOT EXISTS notifications(seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, json TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS cursors(sink TEXT PRIMARY KEY, seq INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS events(id TEXT PRIMARY KEY, t REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS destinations(device TEXT PRIMARY KEY, json TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS clock(name TEXT PRIMARY KEY, t REAL NOT NULL);
            """)
    }

    // MARK: storage faults

    /// Gets ready to write again after `fault` (runtime thread's connection): the log folded
    /// back and truncated on a full disk (it is often what filled it); after the directory was
    /// removed, the outbox copied back from this connection, which still reads the removed
    /// file, and reopened there. Other connections follow with `reopenIfMoved()`.
    public func prepareRetry(after fault: StorageFault) throws(StorageFault) {
        if database.hasMoved {
            try StateFiles.createDirectory(StateFiles.directory(of: path))
            let copy = path + ".restore"
            unlink(copy)
            do { try database.copy(to: copy) } catch { throw StorageFault(error, path: copy) }
            guard rename(copy, path) == 0 else { throw StorageFault(errno: errno, path: path, operation: "rename") }
            try reopen()
        } else if fault.kind == .full {
            do { try database.checkpoint(truncating: true) } catch { throw StorageFault(error, path: path) }
        }
    }

    /// Reopens this connection when the file it has open is no longer the outbox at `path`
    /// (the directory was removed and the runtime thread put the outbox back): what a sink
    /// worker or the checkpointer calls before using the outbox.
    public func reopenIfMoved() {
        guard database.hasMoved, FileManager.default.fileExists(atPath: path) else { return }
        try? reopen()
    }

    private func reopen() throws(StorageFault) {
        do {
            let reopened = try SQLiteDatabase(path: path)
            try Self.prepare(reopened)
            if let watcher = logWatcher { reopened.watchLog(watcher) }
            database = reopened
        } catch {
            throw StorageFault(error, path: path)
        }
    }

    // MARK: transactions and checkpoints

    /// Runs `body` as one transaction, so the writes for one event cost one commit; within
    /// an open batch, as a savepoint of it (its writes undone alone when it throws).
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try database.transaction(body)
    }

    /// Opens a transaction that gathers every write until `commitBatch`: a burst of events
    /// costs one commit instead of one each. Nothing happens when one is open already.
    public func beginBatch() throws(SQLiteError) {
        try database.beginBatch()
    }

    /// Commits what the open batch wrote (nothing when none is open).
    public func commitBatch() throws(SQLiteError) {
        try database.commitBatch()
    }

    /// Undoes what the open batch wrote (nothing when none is open).
    public func rollbackBatch() {
        database.rollbackBatch()
    }

    public var batchIsOpen: Bool { database.batchIsOpen }

    /// Copies committed log pages into the database without waiting for readers or blocking
    /// writers (PASSIVE); returns the log frames still not copied. `truncating` (at shutdown,
    /// when nobody else writes) also empties the log file, waiting for the writer if need be.
    @discardableResult
    public func checkpoint(truncating: Bool = false) throws(SQLiteError) -> Int {
        try database.checkpoint(truncating: truncating)
    }

    /// Calls `onLogSize` with the log's frame count after each commit on this connection.
    public func watchLog(_ onLogSize: @escaping (Int) -> Void) {
        logWatcher = onLogSize
        database.watchLog(onLogSize)
    }

    private var logWatcher: ((Int) -> Void)?

    // MARK: notifications

    /// Stores `record`; returns false when a notification with its id is already stored.
    @discardableResult
    public func add(_ record: NotificationRecord) throws(SQLiteError) -> Bool {
        try store(record) != nil
    }

    /// Stores `record` and returns its place in the outbox order, or nil when a notification
    /// with its id is already stored.
    public func store(_ record: NotificationRecord) throws(SQLiteError) -> Int64? {
        try database.query("INSERT OR IGNORE INTO notifications(id, json) VALUES (?, ?)",
                           [.text(record.id), .text(String(decoding: record.json(), as: UTF8.self))])
        return database.changes == 1 ? database.lastInsertRowID : nil
    }

    /// Starts a cursor for a sink seen for the first time at the newest notification, so a
    /// sink added later does not replay history; an existing cursor is kept.
    public func register(sink: String) throws(SQLiteError) {
        try database.query("INSERT OR IGNORE INTO cursors(sink, seq) SELECT ?, COALESCE(MAX(seq), 0) FROM notifications",
                           [.text(sink)])
    }

    /// The oldest notification the sink has not finished with.
    public func next(for sink: String) throws(SQLiteError) -> (seq: Int64, record: NotificationRecord)? {
        let rows = try database.query("""
            SELECT n.seq, n.json FROM notifications n, cursors c
            WHERE c.sink = ? AND n.seq > c.seq ORDER BY n.seq LIMIT 1
            """, [.text(sink)])
        guard let row = rows.first, let seq = row[0].int, let json = row[1].string else { return nil }
        do { return (seq, try NotificationRecord.decode(Data(json.utf8))) } catch {
            throw SQLiteError(message: "stored notification \(seq) is unreadable: \(error)")
        }
    }

    /// Moves the sink's cursor past `seq` (delivered, or failed for good).
    public func advance(sink: String, to seq: Int64) throws(SQLiteError) {
        try database.query("UPDATE cursors SET seq = ? WHERE sink = ? AND seq < ?", [.integer(seq), .text(sink), .integer(seq)])
    }

    /// How many notifications the sink has still to deliver.
    public func backlog(for sink: String) throws(SQLiteError) -> Int {
        let rows = try database.query("""
            SELECT COUNT(*) FROM notifications n, cursors c WHERE c.sink = ? AND n.seq > c.seq
            """, [.text(sink)])
        return Int(rows.first?.first?.int ?? 0)
    }

    // MARK: events seen

    /// Records an event id; returns false when it was seen before (a duplicate, also across restarts).
    public func markSeen(eventID: String, t: Double) throws(SQLiteError) -> Bool {
        try database.query("INSERT OR IGNORE INTO events(id, t) VALUES (?, ?)", [.text(eventID), .real(t)])
        return database.changes == 1
    }

    // MARK: replay point

    /// The wall time an event was last received (or, before any event, the outbox was first
    /// opened with replay on); a restart asks the bus for the events after it. Returns the
    /// stored time, or nil when there was none (a fresh outbox, which then stores `now` and
    /// must not replay history).
    public func replayPoint(orStart now: Double) throws(SQLiteError) -> Double? {
        let rows = try database.query("SELECT t FROM clock WHERE name = 'lastEvent'")
        if let stored = rows.first?.first?.real { return stored }
        try noteEventReceived(at: now)
        return nil
    }

    /// Moves the replay point forward to `t` (wall time an event was received).
    public func noteEventReceived(at t: Double) throws(SQLiteError) {
        try database.query("INSERT INTO clock(name, t) VALUES ('lastEvent', ?) ON CONFLICT(name) DO UPDATE SET t = max(t, excluded.t)",
                           [.real(t)])
    }

    // MARK: destinations

    public func saveDestination(device: String, json: String?) throws(SQLiteError) {
        if let json {
            try database.query("INSERT OR REPLACE INTO destinations(device, json) VALUES (?, ?)", [.text(device), .text(json)])
        } else {
            try database.query("DELETE FROM destinations WHERE device = ?", [.text(device)])
        }
    }

    public func loadDestinations() throws(SQLiteError) -> [String: String] {
        var result: [String: String] = [:]
        for row in try database.query("SELECT device, json FROM destinations") {
            if let device = row[0].string, let json = row[1].string { result[device] = json }
        }
        return result
    }
}

import CSQLite

/// One SQLite connection and its prepared statements, shared by every service that keeps
/// durable state (the geofence's regions and tracks, the notifier's outbox), so opening,
/// binding, error reporting and lock waiting are written once.
///
/// A connection belongs to one thread (opened NOMUTEX: no lock around each call); a thread
/// that needs the database opens its own. Statements are prepared once per SQL text and
/// reused, because preparing costs more than running the small statements of an event path.
/// A connection that finds the database locked retries on `sqliteBusyRetry`'s short schedule.
public final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    /// The file this connection opened.
    public let path: String
    private var statements: [String: OpaquePointer] = [:]
    var transactionDepth = 0
    var logWatcher: LogWatcher?

    /// Opens (creating if need be) the database file at `path`.
    public init(path: String) throws(SQLiteError) {
        self.path = path
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close(handle)
            handle = nil
            throw SQLiteError(code: status, message: "cannot open \(path): \(message)", systemErrno: systemErrno)
        }
        sqlite3_busy_handler(handle, sqliteBusyRetry, nil)
    }

    deinit {
        // A failed open leaves no handle, and SQLite's calls other than close need one.
        guard let handle else { return }
        sqlite3_wal_hook(handle, nil, nil)
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    /// Runs SQL with no parameters and no rows: schema, pragmas, several statements at once.
    public func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        guard status == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteError(code: status, message: message, extendedCode: sqlite3_extended_errcode(handle),
                              systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Rows changed by the last statement (0 when an `INSERT OR IGNORE` ignored a duplicate).
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether the file this connection writes is no longer the one at `path` (removed with its
    /// directory, or replaced). SQLite keeps writing to a removed file without complaint, and
    /// all of it would be gone at the next start; `transaction` checks this before committing.
    public var hasMoved: Bool {
        var moved: Int32 = 0
        let status = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return status == SQLITE_OK && moved != 0
    }

    /// Writes a consistent copy of the database to `target` (VACUUM INTO): how an owner
    /// whose file was removed puts it back from the connection that still holds it open.
    public func copy(to target: String) throws(SQLiteError) {
        try run("VACUUM INTO ?", [.text(target)])
    }

    /// Copies the write-ahead log into the database; `truncating` also empties the log file,
    /// giving its space back (on a full disk, the log is often what filled it). Returns the
    /// log frames not copied (readers still using them).
    @discardableResult
    public func checkpoint(truncating: Bool) throws(SQLiteError) -> Int {
        let rows = try query(truncating ? "PRAGMA wal_checkpoint(TRUNCATE)" : "PRAGMA wal_checkpoint(PASSIVE)")
        guard let row = rows.first, row.count == 3, let logged = row[1].int, let copied = row[2].int else { return 0 }
        return Int(max(0, logged - copied))
    }

    /// How many statements this connection holds prepared (one per distinct SQL text).
    var preparedStatementCount: Int { statements.count }

    /// The prepared statement for `sql`, prepared on first use and kept (PERSISTENT tells
    /// SQLite it lives long, so it is not taken from the small lookaside pool).
    func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status, sql: sql) }
        statements[sql] = statement
        return statement
    }

    /// The connection's last error, naming the statement that raised it.
    func failure(_ status: Int32, sql: String) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection"
        return SQLiteError(code: status, message: "\(message) in: \(sql)", extendedCode: handle.map { sqlite3_extended_errcode($0) },
                           systemErrno: handle.map { sqlite3_system_errno($0) } ?? 0)
    }
}

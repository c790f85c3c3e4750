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
    private var statements: [String: OpaquePointer] = [:]
    var transactionDepth = 0
    var logWatcher: LogWatcher?

    /// Opens (creating if need be) the database file at `path`.
    public init(path: String) throws(SQLiteError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteError(code: status, message: "cannot open \(path): \(message)")
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
            throw SQLiteError(code: status, message: message)
        }
    }

    /// Rows changed by the last statement (0 when an `INSERT OR IGNORE` ignored a duplicate).
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

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
        return SQLiteError(code: status, message: "\(message) in: \(sql)")
    }
}

import CSQLite
import Foundation

/// A failed SQLite call, with SQLite's own message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A thin owner of one SQLite connection. One connection per thread: the runtime thread
/// writes new notifications, each sink worker reads and advances its own cursor.
///
/// Statements are prepared once per connection and reused: preparing costs more than
/// running the small statements of the event path. A writer that finds the database
/// locked retries every few tens of microseconds (`busyRetry`) instead of SQLite's default
/// sleeps of 1, 2, 5, 10… ms, because every write here holds the lock for well under a
/// millisecond and a millisecond's sleep is the whole latency budget of an event.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private var transactionDepth = 0
    private var logWatcher: LogWatcher?

    init(path: String) throws(SQLiteError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteError(message: "cannot open \(path): \(message)")
        }
        sqlite3_busy_handler(handle, SQLiteDatabase.busyRetry, nil)
    }

    /// Calls `onLogSize` with the frames in the write-ahead log after each commit on this
    /// connection (SQLite's WAL hook, which also replaces its automatic checkpoint).
    func watchLog(_ onLogSize: @escaping (Int) -> Void) {
        logWatcher = LogWatcher(onLogSize)
        let context = Unmanaged.passUnretained(logWatcher!).toOpaque()
        sqlite3_wal_hook(handle, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<LogWatcher>.fromOpaque(context).takeUnretainedValue().onLogSize(Int(frames))
            return SQLITE_OK
        }, context)
    }

    private final class LogWatcher {
        let onLogSize: (Int) -> Void
        init(_ onLogSize: @escaping (Int) -> Void) { self.onLogSize = onLogSize }
    }

    deinit {
        sqlite3_wal_hook(handle, nil, nil)
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteError(message: message)
        }
    }

    /// Runs `body` in one write transaction (one commit, one WAL append) and commits; rolls
    /// back when it throws. Nested calls join the outer transaction.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        try query("BEGIN IMMEDIATE")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// Runs `sql` with text/integer/real bindings and returns every row as column values.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLValue] = []) throws(SQLiteError) -> [[SQLValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in bindings.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .real(let number): sqlite3_bind_double(statement, index, number)
            case .text(let text): sqlite3_bind_text(statement, index, text, -1, SQLiteDatabase.transient)
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var rows: [[SQLValue]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw lastError() }
            var row: [SQLValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_NULL: row.append(.null)
                default: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Rows changed by the last statement (0 when an `INSERT OR IGNORE` ignored a duplicate).
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer? {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else { throw lastError() }
        statements[sql] = statement
        return statement
    }

    private func lastError() -> SQLiteError {
        SQLiteError(message: String(cString: sqlite3_errmsg(handle)))
    }

    /// SQLite's busy handler: retry at once a few times, then every 50 µs, then every
    /// millisecond, for about 5 s in all (the former `sqlite3_busy_timeout(5000)`).
    private static let busyRetry: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { _, count in
        switch count {
        case ..<8: sched_yield()
        case ..<200: usleep(50)
        case ..<5_200: usleep(1_000)
        default: return 0
        }
        return 1
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

enum SQLValue: Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null

    var int: Int64? { if case .integer(let value) = self { return value }; return nil }
    var string: String? { if case .text(let value) = self { return value }; return nil }
    var real: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
}

import CSQLite
import Foundation

/// A failed SQLite call, with SQLite's own message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A thin owner of one SQLite connection. One connection per thread: the runtime thread
/// writes new notifications, each sink worker reads and advances its own cursor.
final class SQLiteDatabase {
    private var handle: OpaquePointer?

    init(path: String) throws(SQLiteError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteError(message: "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteError(message: message)
        }
    }

    /// Runs `sql` with text/integer/real bindings and returns every row as column values.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLValue] = []) throws(SQLiteError) -> [[SQLValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw lastError() }
        defer { sqlite3_finalize(statement) }
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

    private func lastError() -> SQLiteError {
        SQLiteError(message: String(cString: sqlite3_errmsg(handle)))
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

import CSQLite

/// The current row of a running statement, read column by column in place: a caller that
/// loads hundreds of thousands of rows builds its own values and no array per row. Valid
/// only inside the `run` callback that received it.
public struct SQLiteRow {
    let statement: OpaquePointer

    /// How many columns the statement returns.
    public var columnCount: Int { Int(sqlite3_column_count(statement)) }

    /// The column as text ("" for NULL); decoded from its exact byte length, so non-ASCII
    /// and embedded NUL characters survive.
    public func text(_ column: Int) -> String {
        let index = Int32(column)
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column as an integer (0 for NULL, SQLite's conversion for other kinds).
    public func integer(_ column: Int) -> Int { Int(sqlite3_column_int64(statement, Int32(column))) }

    /// The column as a Double, or nil when it is NULL.
    public func real(_ column: Int) -> Double? {
        let index = Int32(column)
        return sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : sqlite3_column_double(statement, index)
    }

    /// The column with the kind SQLite stored it as.
    public func value(_ column: Int) -> SQLiteValue {
        let index = Int32(column)
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_NULL: return .null
        default: return .text(text(column))
        }
    }

    /// Every column, for callers that want the row as values.
    public var values: [SQLiteValue] { (0..<columnCount).map(value) }
}

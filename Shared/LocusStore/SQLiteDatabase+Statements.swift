import CSQLite

extension SQLiteDatabase {
    /// Runs one statement with `values` bound to its `?` parameters in order, handing each
    /// result row to `row` as it is stepped: nothing is collected, so loading a large table
    /// costs only what the caller keeps.
    public func run(_ sql: String, _ values: [SQLiteValue] = [], row: ((SQLiteRow) -> Void)? = nil) throws(SQLiteError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let status = bind(value, at: Int32(offset + 1), in: statement)
            guard status == SQLITE_OK else { throw failure(status, sql: sql) }
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status, sql: sql) }
            row?(SQLiteRow(statement: statement))
        }
    }

    /// Runs one statement and returns its rows as values: for the few-row answers of an event
    /// path (a cursor, a count, a checkpoint's figures).
    @discardableResult
    public func query(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try run(sql, values) { rows.append($0.values) }
        return rows
    }

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let number): return sqlite3_bind_int64(statement, index, number)
        case .real(let number): return sqlite3_bind_double(statement, index, number)
        case .null: return sqlite3_bind_null(statement, index)
        case .text(let text):
            let length = Int32(text.utf8.count)
            return text.withCString { sqlite3_bind_text(statement, index, $0, length, sqliteTransient) }
        }
    }
}

/// SQLITE_TRANSIENT: SQLite copies the bound text before the call returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A failed SQLite call. `code` is SQLite's result code (SQLITE_BUSY, SQLITE_CONSTRAINT…), so
/// a caller can tell a lock from a broken statement; `message` is SQLite's own text, naming
/// the statement when there is one, so a log line says what went wrong without a debugger.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int32
    public var message: String

    /// `code` defaults to 1, SQLITE_ERROR, for failures found outside SQLite (a directory that
    /// cannot be created, a stored row that cannot be decoded).
    public init(code: Int32 = 1, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "sqlite error \(code): \(message)" }
}

/// A failed SQLite call. `code` is SQLite's result code (SQLITE_BUSY, SQLITE_CONSTRAINT…), so
/// a caller can tell a lock from a broken statement; `message` is SQLite's own text, naming
/// the statement when there is one, so a log line says what went wrong without a debugger.
/// `extendedCode` and `systemErrno` say more when SQLite knows it (a disk that is full or
/// read-only, a database file removed while open), for `StorageFault`.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var extendedCode: Int32
    /// The `errno` of the system call that failed underneath, 0 when none did.
    public var systemErrno: Int32

    /// SQLITE_READONLY_DBMOVED: the database file was removed or replaced while open.
    public static let movedCode: Int32 = 8 | (4 << 8)

    /// `code` defaults to 1, SQLITE_ERROR, for failures found outside SQLite (a directory that
    /// cannot be created, a stored row that cannot be decoded).
    public init(code: Int32 = 1, message: String, extendedCode: Int32? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.extendedCode = extendedCode ?? code
        self.systemErrno = systemErrno
    }

    public var description: String { "sqlite error \(code): \(message)" }
}

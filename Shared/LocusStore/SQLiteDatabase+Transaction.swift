import CSQLite
#if canImport(Glibc)
import Glibc
#endif

extension SQLiteDatabase {
    /// Runs `body` in one write transaction and commits: one commit, one append to the log,
    /// for a whole batch or event. BEGIN IMMEDIATE takes the write lock up front, so the
    /// transaction cannot fail half-way on a lock another connection took first. Rolls back
    /// when `body` or the commit throws, and when the file was removed meanwhile (`hasMoved`):
    /// a commit there would be lost at the next start. A nested call joins the outer transaction: its
    /// writes commit or roll back with the outermost one.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        try run("BEGIN IMMEDIATE")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do throws(SQLiteError) {
            let result = try body()
            if hasMoved {
                throw SQLiteError(code: SQLITE_READONLY, message: "\(path) was removed while open (with its directory?)",
                                  extendedCode: SQLiteError.movedCode, systemErrno: ENOENT)
            }
            try run("COMMIT")
            return result
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }
}

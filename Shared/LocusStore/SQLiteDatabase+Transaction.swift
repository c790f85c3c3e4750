import CSQLite
#if canImport(Glibc)
import Glibc
#endif

extension SQLiteDatabase {
    /// Runs `body` in one write transaction and commits: one commit, one append to the log,
    /// for a whole batch or event. BEGIN IMMEDIATE takes the write lock up front, so the
    /// transaction cannot fail half-way on a lock another connection took first. Rolls back
    /// when `body` or the commit throws, and when the file was removed meanwhile (`hasMoved`):
    /// a commit there would be lost at the next start.
    ///
    /// A nested call (or a call while a batch is open, `beginBatch`) runs as a savepoint of
    /// the outer transaction: when its body throws, its own writes are undone and the error
    /// passes on; what it wrote otherwise commits or rolls back with the outermost one.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        if transactionDepth > 0 {
            try run("SAVEPOINT nested")
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            do {
                let result = try body()
                try run("RELEASE nested")
                return result
            } catch {
                try? run("ROLLBACK TO nested")
                try? run("RELEASE nested")
                throw error
            }
        }
        try run("BEGIN IMMEDIATE")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do throws(SQLiteError) {
            let result = try body()
            try checkNotMoved()
            try run("COMMIT")
            return result
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    /// Throws when the file was removed while open: a commit there would be lost at the next start.
    private func checkNotMoved() throws(SQLiteError) {
        guard hasMoved else { return }
        throw SQLiteError(code: SQLITE_READONLY, message: "\(path) was removed while open (with its directory?)",
                          extendedCode: SQLiteError.movedCode, systemErrno: ENOENT)
    }

    /// Whether a batch opened by `beginBatch` is waiting for `commitBatch`.
    public var batchIsOpen: Bool { transactionDepth > 0 }

    /// Opens a write transaction that stays open across calls until `commitBatch`, so a
    /// burst of events costs one commit; `transaction` calls meanwhile are its savepoints.
    public func beginBatch() throws(SQLiteError) {
        guard transactionDepth == 0 else { return }
        try run("BEGIN IMMEDIATE")
        transactionDepth = 1
    }

    /// Commits the open batch (nothing when none is open); rolls it back when the commit fails,
    /// and when the file was removed meanwhile (`hasMoved`), as `transaction` does.
    public func commitBatch() throws(SQLiteError) {
        guard transactionDepth > 0 else { return }
        transactionDepth = 0
        do throws(SQLiteError) {
            try checkNotMoved()
            try run("COMMIT")
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    /// Undoes everything the open batch wrote (nothing when none is open).
    public func rollbackBatch() {
        guard transactionDepth > 0 else { return }
        transactionDepth = 0
        try? run("ROLLBACK")
    }
}

import Foundation
import LocusStore
import XCTest

/// A connection that finds the write lock taken waits on the busy handler installed at open
/// instead of failing with SQLITE_BUSY, and goes ahead as soon as the lock is released.
final class SQLiteBusyRetryTests: XCTestCase {
    func testAWriterWaitsForAnotherConnectionsTransaction() throws {
        let path = try makeTemporaryDirectory(for: self).appendingPathComponent("busy.sqlite").path
        let holder = try SQLiteDatabase(path: path)
        try holder.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(who TEXT)")
        try holder.run("BEGIN IMMEDIATE")
        try holder.run("INSERT INTO t VALUES ('holder')")

        let outcome = WriterOutcome()
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
            outcome.record { () throws(SQLiteError) in
                let database = try SQLiteDatabase(path: path)
                try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES ('writer')") }
            }
            finished.signal()
        }
        writer.start()

        XCTAssertEqual(finished.wait(timeout: .now() + .milliseconds(200)), .timedOut,
                       "the writer must still be waiting while the lock is held")
        let released = Date()
        try holder.run("COMMIT")
        XCTAssertEqual(finished.wait(timeout: .now() + .seconds(4)), .success)
        let waitedSeconds = outcome.finishedAt.map { $0.timeIntervalSince(released) } ?? .infinity
        print("busy retry: writer committed \(Int(waitedSeconds * 1_000_000)) µs after the lock was released")

        XCTAssertNil(outcome.error)
        XCTAssertLessThan(waitedSeconds, 1, "the retry schedule polls at least every millisecond")
        XCTAssertEqual(try holder.query("SELECT who FROM t ORDER BY rowid").map { $0[0] }, [.text("holder"), .text("writer")])
    }
}

/// What the writer thread saw, read by the test after it signalled.
private final class WriterOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var storedError: SQLiteError?
    private var storedFinishedAt: Date?

    func record(_ body: () throws(SQLiteError) -> Void) {
        var failure: SQLiteError?
        do { try body() } catch { failure = error }
        lock.lock()
        storedError = failure
        storedFinishedAt = Date()
        lock.unlock()
    }

    var error: SQLiteError? { lock.lock(); defer { lock.unlock() }; return storedError }
    var finishedAt: Date? { lock.lock(); defer { lock.unlock() }; return storedFinishedAt }
}

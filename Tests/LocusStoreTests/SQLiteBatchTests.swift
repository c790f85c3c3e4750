import Foundation
import LocusStore
import XCTest

/// A batch keeps one transaction open across calls, so a burst of events costs one commit;
/// each `transaction` inside it is a savepoint whose failure undoes its own writes only.
final class SQLiteBatchTests: XCTestCase {
    private func open() throws -> (SQLiteDatabase, String) {
        let path = try makeTemporaryDirectory(for: self).appendingPathComponent("batch.sqlite").path
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(n INTEGER)")
        return (database, path)
    }

    private func count(_ database: SQLiteDatabase) throws -> Int64? {
        try database.query("SELECT COUNT(*) FROM t").first?.first?.int
    }

    func testABatchCommitsOnceAndOthersSeeNothingBefore() throws {
        let (database, path) = try open()
        let reader = try SQLiteDatabase(path: path)
        var commits = 0
        database.watchLog { _ in commits += 1 }
        try database.beginBatch()
        XCTAssertTrue(database.batchIsOpen)
        for n in 0..<50 {
            try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (?)", [.integer(Int64(n))]) }
        }
        XCTAssertEqual(try count(database), 50, "the batch's own connection sees its writes")
        XCTAssertEqual(try count(reader), 0, "another connection sees none before the commit")
        XCTAssertEqual(commits, 0)
        try database.commitBatch()
        XCTAssertFalse(database.batchIsOpen)
        XCTAssertEqual(commits, 1, "fifty transactions, one commit")
        XCTAssertEqual(try count(reader), 50)
        try database.commitBatch()  // nothing open: nothing happens
        XCTAssertEqual(commits, 1)
    }

    func testAFailedSavepointUndoesItsOwnWritesOnly() throws {
        let (database, _) = try open()
        try database.beginBatch()
        try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (1)") }
        XCTAssertThrowsError(try database.transaction { () throws(SQLiteError) in
            try database.run("INSERT INTO t VALUES (2)")
            try database.run("INSERT INTO missing VALUES (2)")
        })
        try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (3)") }
        try database.commitBatch()
        XCTAssertEqual(try database.query("SELECT n FROM t ORDER BY n").compactMap { $0.first?.int }, [1, 3])
    }

    func testBeginningTwiceKeepsOneBatch() throws {
        let (database, _) = try open()
        try database.beginBatch()
        try database.run("INSERT INTO t VALUES (1)")
        try database.beginBatch()
        try database.run("INSERT INTO t VALUES (2)")
        try database.commitBatch()
        XCTAssertFalse(database.batchIsOpen)
        XCTAssertEqual(try count(database), 2)
    }

    func testARolledBackBatchLeavesNothing() throws {
        let (database, _) = try open()
        try database.beginBatch()
        try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (1)") }
        database.rollbackBatch()
        XCTAssertFalse(database.batchIsOpen)
        XCTAssertEqual(try count(database), 0)
        database.rollbackBatch()  // nothing open: nothing happens
        try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try count(database), 1, "the connection writes as usual after it")
    }

    /// A batch on a file removed meanwhile is not committed there (it would be lost at the next
    /// start): the commit throws the moved error and the batch is rolled back.
    func testABatchOnARemovedFileIsNotCommitted() throws {
        let (database, path) = try open()
        try database.beginBatch()
        try database.run("INSERT INTO t VALUES (1)")
        try FileManager.default.removeItem(atPath: path)
        XCTAssertThrowsError(try database.commitBatch()) { error in
            XCTAssertEqual((error as? SQLiteError)?.extendedCode, SQLiteError.movedCode)
        }
        XCTAssertFalse(database.batchIsOpen)
        XCTAssertEqual(try count(database), 0, "rolled back")
    }
}

import Foundation
import LocusStore
import XCTest

/// A transaction commits once for all its writes, and a failure anywhere inside it — nested
/// calls included — leaves the database as it was.
final class SQLiteTransactionTests: XCTestCase {
    private func openCounter() throws -> SQLiteDatabase {
        try openTemporaryDatabase(for: self, schema: "PRAGMA journal_mode=WAL; CREATE TABLE t(n INTEGER)")
    }

    private func count(_ database: SQLiteDatabase) throws -> Int64? {
        try database.query("SELECT COUNT(*) FROM t").first?.first?.int
    }

    func testNestedCallsCommitWithTheOutermost() throws {
        let database = try openCounter()
        let result = try database.transaction { () throws(SQLiteError) -> Int in
            try database.run("INSERT INTO t VALUES (1)")
            try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (2)") }
            return database.changes
        }
        XCTAssertEqual(result, 1)
        XCTAssertEqual(try count(database), 2)
    }

    func testAThrowInANestedCallRollsBackTheWholeTransaction() throws {
        let database = try openCounter()
        try database.run("INSERT INTO t VALUES (0)")
        XCTAssertThrowsError(try database.transaction { () throws(SQLiteError) in
            try database.run("INSERT INTO t VALUES (1)")
            try database.transaction { () throws(SQLiteError) in
                try database.run("INSERT INTO t VALUES (2)")
                throw SQLiteError(message: "stop")
            }
        }) { error in
            XCTAssertEqual((error as? SQLiteError)?.message, "stop")
        }
        XCTAssertEqual(try count(database), 1, "only the row written before the transaction is left")
        try database.transaction { () throws(SQLiteError) in try database.run("INSERT INTO t VALUES (3)") }
        XCTAssertEqual(try count(database), 2, "a later transaction starts afresh after the rollback")
    }

    func testAFailingStatementRollsBackEarlierWrites() throws {
        let database = try openCounter()
        XCTAssertThrowsError(try database.transaction { () throws(SQLiteError) in
            try database.run("INSERT INTO t VALUES (1)")
            try database.run("INSERT INTO missing VALUES (1)")
        })
        XCTAssertEqual(try count(database), 0)
    }

    func testEachCommitReportsTheLogSize() throws {
        let database = try openCounter()
        var sizes: [Int] = []
        database.watchLog { sizes.append($0) }
        try database.transaction { () throws(SQLiteError) in
            for n in 0..<100 { try database.run("INSERT INTO t VALUES (?)", [.integer(Int64(n))]) }
        }
        try database.run("INSERT INTO t VALUES (100)")
        XCTAssertEqual(sizes.count, 2, "one report per commit, not per statement")
        XCTAssertGreaterThan(sizes[0], 0)
        XCTAssertGreaterThan(sizes[1], sizes[0], "with no checkpoint the log only grows")
    }
}

import Foundation
import XCTest
@testable import LocusStore

/// Statements are prepared once per SQL text and come back clean for the next call: reset,
/// with no bindings left over, even after a failure.
final class SQLiteStatementCacheTests: XCTestCase {
    private func open() throws -> SQLiteDatabase {
        try openTemporaryDatabase(for: self, schema: "CREATE TABLE t(id TEXT PRIMARY KEY, note TEXT)")
    }

    func testTheSameSQLIsPreparedOnce() throws {
        let database = try open()
        XCTAssertEqual(database.preparedStatementCount, 0, "execute prepares nothing to keep")
        for n in 0..<50 { try database.run("INSERT INTO t(id) VALUES (?)", [.text("id\(n)")]) }
        XCTAssertEqual(database.preparedStatementCount, 1)
        XCTAssertEqual(try database.query("SELECT COUNT(*) FROM t"), [[.integer(50)]])
        XCTAssertEqual(try database.query("SELECT COUNT(*) FROM t"), [[.integer(50)]])
        XCTAssertEqual(database.preparedStatementCount, 2)
    }

    func testAReusedStatementStartsWithoutTheLastBindings() throws {
        let database = try open()
        let insert = "INSERT INTO t(id, note) VALUES (?, ?)"
        try database.run(insert, [.text("a"), .text("first")])
        try database.run(insert, [.text("b")])
        XCTAssertEqual(try database.query("SELECT note FROM t WHERE id = 'b'"), [[.null]])
    }

    func testAStatementThatFailedRunsAgain() throws {
        let database = try open()
        let insert = "INSERT INTO t(id) VALUES (?)"
        try database.run(insert, [.text("a")])
        XCTAssertThrowsError(try database.run(insert, [.text("a")]))
        try database.run(insert, [.text("b")])
        XCTAssertEqual(try database.query("SELECT id FROM t ORDER BY id"), [[.text("a")], [.text("b")]])
    }

    func testACachedQueryStartsFromTheFirstRowEachTime() throws {
        let database = try open()
        for id in ["a", "b", "c"] { try database.run("INSERT INTO t(id) VALUES (?)", [.text(id)]) }
        let select = "SELECT id FROM t ORDER BY id"
        let expected: [[SQLiteValue]] = [[.text("a")], [.text("b")], [.text("c")]]
        XCTAssertEqual(try database.query(select), expected)
        XCTAssertEqual(try database.query(select), expected)
        XCTAssertEqual(database.preparedStatementCount, 2)
    }
}

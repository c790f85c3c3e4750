import CSQLite
import Foundation
import LocusStore
import XCTest

/// A failure says what SQLite objected to and in which statement, with SQLite's result code.
final class SQLiteErrorTests: XCTestCase {
    private func open() throws -> SQLiteDatabase {
        try openTemporaryDatabase(for: self, schema: "CREATE TABLE t(id TEXT PRIMARY KEY)")
    }

    func testASyntaxErrorNamesTheTokenAndTheStatement() throws {
        let database = try open()
        XCTAssertThrowsError(try database.run("SELEC id FROM t")) { error in
            let failure = error as? SQLiteError
            XCTAssertEqual(failure?.code, SQLITE_ERROR)
            XCTAssertTrue(failure?.message.contains("near \"SELEC\": syntax error") == true, failure?.message ?? "")
            XCTAssertTrue(failure?.message.contains("SELEC id FROM t") == true, failure?.message ?? "")
        }
    }

    func testAMissingTableIsNamed() throws {
        let database = try open()
        XCTAssertThrowsError(try database.query("SELECT * FROM missing")) { error in
            XCTAssertTrue((error as? SQLiteError)?.message.contains("no such table: missing") == true)
        }
        XCTAssertThrowsError(try database.execute("DELETE FROM missing")) { error in
            XCTAssertTrue((error as? SQLiteError)?.message.contains("no such table: missing") == true)
        }
    }

    func testAConstraintFailureCarriesItsCode() throws {
        let database = try open()
        try database.run("INSERT INTO t VALUES (?)", [.text("a")])
        XCTAssertThrowsError(try database.run("INSERT INTO t VALUES (?)", [.text("a")])) { error in
            let failure = error as? SQLiteError
            XCTAssertEqual(failure?.code, SQLITE_CONSTRAINT)
            XCTAssertTrue(failure?.message.contains("UNIQUE constraint failed: t.id") == true, failure?.message ?? "")
            XCTAssertTrue(failure?.description.hasPrefix("sqlite error \(SQLITE_CONSTRAINT): ") == true)
        }
    }

    func testAnUnopenableFileNamesThePath() throws {
        let path = try makeTemporaryDirectory(for: self).appendingPathComponent("no/such/dir/x.sqlite").path
        XCTAssertThrowsError(try SQLiteDatabase(path: path)) { error in
            let failure = error as? SQLiteError
            XCTAssertEqual(failure?.code, SQLITE_CANTOPEN)
            XCTAssertTrue(failure?.message.hasPrefix("cannot open \(path): ") == true, failure?.message ?? "")
        }
    }

    func testTooFewParametersIsAnErrorNotACrash() throws {
        let database = try open()
        XCTAssertThrowsError(try database.run("SELECT ?", [.integer(1), .integer(2)])) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, SQLITE_RANGE)
        }
    }
}

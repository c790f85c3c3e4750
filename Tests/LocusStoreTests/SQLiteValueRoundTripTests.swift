import Foundation
import LocusStore
import XCTest

/// Every kind of value goes into a real file and comes back the same, through `query`, through
/// the streaming row view, and through a second connection opened after the first closed.
final class SQLiteValueRoundTripTests: XCTestCase {
    private let samples: [SQLiteValue] = [
        .integer(0), .integer(Int64.max), .integer(Int64.min), .integer(-42),
        .real(3.141_592_653_589_793), .real(-0.5), .real(1e-300),
        .text(""), .text("plain"), .text("Zürich – Łódź – 東京 – 🚲"), .text("nul\u{0}inside"),
        .null,
    ]

    func testEveryKindRoundTripsThroughAFile() throws {
        let path = try makeTemporaryDirectory(for: self).appendingPathComponent("values.sqlite").path
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("CREATE TABLE v(n INTEGER PRIMARY KEY, value)")
            for (index, sample) in samples.enumerated() {
                try database.run("INSERT INTO v(n, value) VALUES (?, ?)", [.integer(Int64(index)), sample])
            }
            XCTAssertEqual(try database.query("SELECT value FROM v ORDER BY n").map { $0[0] }, samples)
        }
        let reopened = try SQLiteDatabase(path: path)
        XCTAssertEqual(try reopened.query("SELECT value FROM v ORDER BY n").map { $0[0] }, samples)
    }

    func testRowAccessorsReadColumnsInPlace() throws {
        let database = try openTemporaryDatabase(for: self, schema: "CREATE TABLE t(name TEXT, count INTEGER, level REAL)")
        try database.run("INSERT INTO t VALUES (?, ?, ?)", [.text("Ørsted"), .integer(7), .real(2.5)])
        try database.run("INSERT INTO t VALUES (?, ?, ?)", [.null, .integer(-3), .null])
        var seen: [(String, Int, Double?, Int)] = []
        try database.run("SELECT name, count, level FROM t ORDER BY rowid") { row in
            seen.append((row.text(0), row.integer(1), row.real(2), row.columnCount))
        }
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen[0].0, "Ørsted")
        XCTAssertEqual(seen[0].1, 7)
        XCTAssertEqual(seen[0].2, 2.5)
        XCTAssertEqual(seen[1].0, "", "NULL reads as empty text")
        XCTAssertEqual(seen[1].1, -3)
        XCTAssertNil(seen[1].2, "NULL reads as no number")
        XCTAssertEqual(seen.map(\.3), [3, 3])
    }

    func testValueAccessorsConvertOnlyWhereMeaningful() {
        XCTAssertEqual(SQLiteValue.integer(5).int, 5)
        XCTAssertEqual(SQLiteValue.integer(5).real, 5.0)
        XCTAssertNil(SQLiteValue.real(5).int)
        XCTAssertEqual(SQLiteValue.text("x").string, "x")
        XCTAssertNil(SQLiteValue.null.string)
        XCTAssertNil(SQLiteValue.null.real)
    }

    func testChangesAndLastInsertRowIDDescribeTheLastStatement() throws {
        let database = try openTemporaryDatabase(for: self, schema: "CREATE TABLE t(seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE)")
        try database.run("INSERT OR IGNORE INTO t(id) VALUES (?)", [.text("a")])
        XCTAssertEqual(database.changes, 1)
        try database.run("INSERT OR IGNORE INTO t(id) VALUES (?)", [.text("b")])
        XCTAssertEqual(database.lastInsertRowID, 2)
        try database.run("INSERT OR IGNORE INTO t(id) VALUES (?)", [.text("a")])
        XCTAssertEqual(database.changes, 0, "an ignored duplicate changes nothing")
        try database.run("UPDATE t SET id = id || '!'")
        XCTAssertEqual(database.changes, 2)
    }
}

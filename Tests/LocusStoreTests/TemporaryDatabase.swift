import Foundation
import LocusStore
import XCTest

/// A fresh directory per test for real database files, removed when the test ends.
func makeTemporaryDirectory(for test: XCTestCase) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("locus-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
    return directory
}

/// A new database file in a fresh directory, with `schema` already run on it.
func openTemporaryDatabase(for test: XCTestCase, schema: String) throws -> SQLiteDatabase {
    let path = try makeTemporaryDirectory(for: test).appendingPathComponent("test.sqlite").path
    let database = try SQLiteDatabase(path: path)
    try database.execute(schema)
    return database
}

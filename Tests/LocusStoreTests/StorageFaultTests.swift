import CSQLite
import Foundation
import LocusStore
import XCTest

/// A storage failure is named the way an operator acts on it: by errno when the writer kept
/// one, by SQLite's code otherwise, and by a test write beside the file when SQLite reported
/// a bare I/O error.
final class StorageFaultTests: XCTestCase {
    /// SQLITE_IOERR_WRITE (a macro Swift does not import).
    private static let ioErrWrite: Int32 = SQLITE_IOERR | (3 << 8)

    private func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storage-fault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }

    func testErrnoDecidesTheKind() {
        XCTAssertEqual(StorageFault(errno: ENOSPC, path: "/s/f", operation: "write").kind, .full)
        XCTAssertEqual(StorageFault(errno: EROFS, path: "/s/f", operation: "write").kind, .readOnly)
        XCTAssertEqual(StorageFault(errno: EACCES, path: "/s/f", operation: "open").kind, .denied)
        XCTAssertEqual(StorageFault(errno: EIO, path: "/s/f", operation: "write").kind, .io)
        XCTAssertEqual(StorageFault(errno: ENOENT, path: "/s/f", operation: "open").kind, .gone)
        let fault = StorageFault(errno: EROFS, path: "/s/f", operation: "write")
        XCTAssertEqual(fault.description, "read-only: /s/f: write: Read-only file system")
    }

    func testSQLiteCodesAndKeptErrnoDecideTheKind() {
        XCTAssertEqual(StorageFault(SQLiteError(code: SQLITE_FULL, message: "database or disk is full"), path: "/s/db").kind, .full)
        let keptErrno = SQLiteError(code: SQLITE_IOERR, message: "disk I/O error", extendedCode: Self.ioErrWrite, systemErrno: EROFS)
        XCTAssertEqual(StorageFault(keptErrno, path: "/s/db").kind, .readOnly)
    }

    func testABareIOErrorIsDiagnosedByATestWriteBesideTheFile() throws {
        let bare = SQLiteError(code: SQLITE_IOERR, message: "disk I/O error", extendedCode: Self.ioErrWrite)
        let directory = try temporaryDirectory()
        // A directory that takes the test write: the disk itself failed.
        let writable = StorageFault(bare, path: directory + "/state.db")
        XCTAssertEqual(writable.kind, .io)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "the test file is removed")
        // A directory that is gone.
        let gone = StorageFault(bare, path: directory + "/removed/state.db")
        XCTAssertEqual(gone.kind, .gone)
        XCTAssertTrue(gone.cause.contains("a test write beside it: No such file or directory"), gone.cause)
    }

    func testTheProbeReportsTheErrnoThatStoppedIt() throws {
        let directory = try temporaryDirectory()
        XCTAssertEqual(StateFiles.probeWrite(in: directory), 0)
        XCTAssertEqual(StateFiles.probeWrite(in: directory + "/missing"), ENOENT)
        let file = directory + "/plain"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        XCTAssertEqual(StateFiles.probeWrite(in: file), ENOTDIR)
    }
}

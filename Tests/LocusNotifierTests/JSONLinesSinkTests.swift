import Foundation
import XCTest
@testable import LocusNotifier

/// The JSONL sink appends one decodable line per notification whether or not it flushes
/// each line to the disk; the flush changes only what survives a power cut.
final class JSONLinesSinkTests: XCTestCase {
    private func record(_ n: Int) -> NotificationRecord {
        NotificationRecord(id: "n-\(n)", ref: "e-\(n)", kind: .enter, title: "t\(n)", body: "b\(n)", locale: "en", t: Double(n))
    }

    func testAppendsOneLinePerNotificationWithAndWithoutFlushing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("n.jsonl").path
        XCTAssertFalse(JSONLinesSink(path: path).syncEachLine, "the default promise is the outbox's: survive a process crash")
        XCTAssertEqual(JSONLinesSink(path: path).deliver(record(1)), .delivered)
        XCTAssertEqual(JSONLinesSink(path: path, syncEachLine: true).deliver(record(2)), .delivered)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(try lines.map { try NotificationRecord.decode(Data($0.utf8)).id }, ["n-1", "n-2"])
    }

    func testUnwritablePathAsksForARetry() {
        let outcome = JSONLinesSink(path: "/nonexistent-dir-\(UUID().uuidString)/n.jsonl").deliver(record(1))
        guard case .retry = outcome else { return XCTFail("expected retry, got \(outcome)") }
    }
}

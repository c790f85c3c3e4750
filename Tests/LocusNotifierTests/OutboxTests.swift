import Foundation
import XCTest
@testable import LocusNotifier

final class OutboxTests: XCTestCase {
    private func record(_ n: Int) -> NotificationRecord {
        NotificationRecord(id: "n-\(n)", ref: "e-\(n)", kind: .enter, title: "t\(n)", body: "b\(n)", locale: "en", t: Double(n))
    }

    func testSinkReadsInOrderAndCursorSurvivesReopening() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let outbox = try Outbox(directory: directory)
            try outbox.register(sink: "a")
            for n in 1...3 { XCTAssertTrue(try outbox.add(record(n))) }
            XCTAssertFalse(try outbox.add(record(2)), "same id is stored once")
            let first = try XCTUnwrap(try outbox.next(for: "a"))
            XCTAssertEqual(first.record, record(1))
            try outbox.advance(sink: "a", to: first.seq)
        }
        let reopened = try Outbox(directory: directory)
        XCTAssertEqual(try reopened.next(for: "a")?.record.id, "n-2")
        XCTAssertEqual(try reopened.backlog(for: "a"), 2)
    }

    func testSinkAddedLaterStartsAtTheNewestNotification() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try Outbox(directory: directory)
        try outbox.add(record(1))
        try outbox.register(sink: "late")
        XCTAssertNil(try outbox.next(for: "late"))
        try outbox.add(record(2))
        XCTAssertEqual(try outbox.next(for: "late")?.record.id, "n-2")
    }

    func testEventIDsAreRememberedAcrossConnections() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertTrue(try Outbox(directory: directory).markSeen(eventID: "e1", t: 1))
        XCTAssertFalse(try Outbox(directory: directory).markSeen(eventID: "e1", t: 1))
    }
}

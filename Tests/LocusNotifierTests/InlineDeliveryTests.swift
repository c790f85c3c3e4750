import Foundation
import LocusService
import LocusProtocol
import LocusStore
import XCTest
@testable import LocusNotifier

/// A file sink whose worker is idle gets a new notification on the runtime thread, inside
/// the event's own `receive`, and its record comes back from that call; while the worker
/// still has older notifications, new ones wait their turn, so order and once-only hold.
final class InlineDeliveryTests: XCTestCase {
    private func logic(directory: URL, sinkPath: String) throws -> (NotifierLogic, DeliveryService) {
        let delivery = DeliveryService(directory: directory, sinks: [("jsonl", { JSONLinesSink(path: sinkPath) })],
                                       policy: RetryPolicy(initialDelaySeconds: 0.001, maximumDelaySeconds: 0.01))
        let logic = try NotifierLogic(configuration: NotifierConfiguration(catalog: MessageCatalog(locale: "en")),
                                      outbox: Outbox(directory: directory), delivery: delivery)
        delivery.start()
        return (logic, delivery)
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try NotificationRecord.decode(Data($0.utf8)).id }
    }

    func testIdleFileSinkIsDeliveredWithinTheEventAndItsCursorMoves() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("n.jsonl").path
        var (logic, delivery) = try logic(directory: directory, sinkPath: path)
        XCTAssertTrue(delivery.drain(timeoutSeconds: 5), "the worker settles with nothing to do")
        for n in 1...3 {
            let output = logic.receive(regionEventMessage(id: "e\(n)", t: Double(n), region: "r", event: n % 2 == 1 ? .enter : .exit),
                                       topic: "region.event.app", now: Double(n))
            let records = output.compactMap(\.notification)
            XCTAssertEqual(records.map(\.ref), ["e\(n)"], "the record is published by the event's own receive")
            XCTAssertEqual(records.first?.status, .delivered)
            XCTAssertEqual(try lines(path).last, "n-e\(n)", "the line is written before receive returns")
        }
        XCTAssertEqual(try Outbox(directory: directory).backlog(for: "jsonl"), 0, "the cursor is committed too")
        _ = logic.finish(now: 10)
        XCTAssertEqual(try lines(path), ["n-e1", "n-e2", "n-e3"], "each once, in order")
        XCTAssertEqual(logic.healthCounters["delivered"], 3)
    }

    func testBacklogOfTheWorkerIsNotOvertaken() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("later")
        let path = missing.appendingPathComponent("n.jsonl").path
        var (logic, delivery) = try logic(directory: directory, sinkPath: path)
        XCTAssertTrue(delivery.drain(timeoutSeconds: 5))
        var published: [Outbound] = []
        published += logic.receive(regionEventMessage(id: "e1", t: 1, region: "r", event: .enter), topic: "region.event.app", now: 1)
        XCTAssertTrue(published.compactMap(\.notification).isEmpty, "an attempt that must be retried is left to the worker")
        published += logic.receive(regionEventMessage(id: "e2", t: 2, region: "r", event: .exit), topic: "region.event.app", now: 2)
        try FileManager.default.createDirectory(at: missing, withIntermediateDirectories: true)
        published += logic.receive(regionEventMessage(id: "e3", t: 3, region: "r", event: .enter), topic: "region.event.app", now: 3)
        published += logic.finish(now: 10)
        XCTAssertEqual(try lines(path), ["n-e1", "n-e2", "n-e3"], "each once, in outbox order")
        XCTAssertEqual(published.compactMap(\.notification).filter { $0.status == .delivered }.map(\.ref), ["e1", "e2", "e3"])
    }

    func testFailedTransactionLeavesNothingBehind() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try Outbox(directory: directory)
        let record = NotificationRecord(id: "n-1", ref: "e-1", kind: .enter, title: "t", body: "b", locale: "en", t: 1)
        XCTAssertThrowsError(try outbox.transaction { () throws(SQLiteError) in
            _ = try outbox.markSeen(eventID: "e-1", t: 1)
            _ = try outbox.store(record)
            throw SQLiteError(message: "stop")
        })
        XCTAssertTrue(try outbox.markSeen(eventID: "e-1", t: 1), "the rolled-back id was not kept")
        let first = try XCTUnwrap(try outbox.store(record))
        let second = try XCTUnwrap(try outbox.store(NotificationRecord(id: "n-2", ref: "e-2", kind: .exit, title: "t", body: "b",
                                                                     locale: "en", t: 2)))
        XCTAssertGreaterThan(second, first, "stored order is outbox order")
        XCTAssertNil(try outbox.store(record), "a stored id is not stored again")
        XCTAssertEqual(try outbox.checkpoint(), 0, "with no reader, a passive checkpoint copies the whole log")
    }

    func testTimeTextMatchesISO8601() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for t in [0, 1_700_000_000.75, 1_795_000_000, -86_401.5, 4_102_444_800] {
            XCTAssertEqual(NotificationComposer.timeText(t), formatter.string(from: Date(timeIntervalSince1970: t)), "t = \(t)")
        }
    }
}

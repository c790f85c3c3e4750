import Foundation
import LocusProtocol
import LocusService
import LocusStore
import XCTest
@testable import LocusNotifier

/// With `commitsOnFlush` (the executable's setting) a burst of events is one transaction and
/// one sink write: nothing reaches the outbox's other connections or the sink before `flush`,
/// everything in outbox order after it. A batch whose commit fails is held whole and routed
/// again once the outbox can be written: nothing lost, nothing delivered before its commit,
/// nothing twice.
final class NotifierBatchTests: XCTestCase {
    private var root: URL!
    private var state: URL { root.appendingPathComponent("state") }
    private var sinkPath: String { root.appendingPathComponent("n.jsonl").path }

    override func setUp() { root = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: root) }

    private func logic() throws -> (NotifierLogic, DeliveryService) {
        let path = sinkPath
        let delivery = DeliveryService(directory: state, sinks: [("jsonl", { JSONLinesSink(path: path) })],
                                       policy: RetryPolicy(initialDelaySeconds: 0.001, maximumDelaySeconds: 0.01))
        var logic = try NotifierLogic(configuration: NotifierConfiguration(catalog: MessageCatalog(locale: "en")),
                                      outbox: Outbox(directory: state), delivery: delivery)
        logic.commitsOnFlush = true
        delivery.start()
        XCTAssertTrue(delivery.drain(timeoutSeconds: 5), "the worker settles with nothing to do")
        return (logic, delivery)
    }

    private func ids() throws -> [String] {
        guard FileManager.default.fileExists(atPath: sinkPath) else { return [] }
        return try String(contentsOfFile: sinkPath, encoding: .utf8).split(separator: "\n").map { try NotificationRecord.decode(Data($0.utf8)).id }
    }

    private func event(_ n: Int) -> Message {
        regionEventMessage(id: "e\(n)", t: Double(n), region: "r\(n % 7)", event: n % 2 == 1 ? .enter : .exit)
    }

    func testABurstIsCommittedAndWrittenOnceByFlush() throws {
        var (logic, _) = try logic()
        var output: [Outbound] = []
        for n in 1...200 { output += logic.receive(event(n), topic: "region.event.app", now: Double(n)) }
        XCTAssertTrue(output.isEmpty, "nothing is published before the batch commits")
        XCTAssertEqual(try ids(), [])
        XCTAssertEqual(try Outbox(directory: state).backlog(for: "jsonl"), 0, "other connections see no uncommitted notification")
        output += logic.flush(now: 201)
        XCTAssertEqual(output.compactMap(\.notification).filter { $0.status == .delivered }.map(\.ref), (1...200).map { "e\($0)" })
        XCTAssertEqual(try ids(), (1...200).map { "n-e\($0)" }, "one write, in outbox order")
        XCTAssertEqual(try Outbox(directory: state).backlog(for: "jsonl"), 0, "the cursor moved past the burst")
        XCTAssertEqual(logic.flush(now: 202), [], "an empty batch commits nothing and says nothing")
        _ = logic.finish(now: 300)
        XCTAssertEqual(logic.healthCounters["delivered"], 200)
    }

    func testARepeatedEventInTheBurstIsNotifiedOnce() throws {
        var (logic, _) = try logic()
        for id in ["e1", "e2", "e1", "e3", "e2"] {
            _ = logic.receive(regionEventMessage(id: id, t: 1, region: "r", event: .enter), topic: "region.event.app", now: 1)
        }
        _ = logic.flush(now: 2)
        XCTAssertEqual(try ids(), ["n-e1", "n-e2", "n-e3"])
        XCTAssertEqual(logic.healthCounters["duplicates"], 2)
        _ = logic.finish(now: 3)
    }

    /// The commit of a batch fails (its directory was removed, so the commit would be lost):
    /// the batch's events are held with those that follow, nothing of it is published or
    /// delivered, and once the outbox is back every event is notified once, in order.
    func testAFailedBatchCommitHoldsEveryEventOfTheBatch() throws {
        var (logic, _) = try logic()
        var output: [Outbound] = []
        for n in 1...3 { output += logic.receive(event(n), topic: "region.event.app", now: Double(n)) }
        output += logic.flush(now: 3)
        XCTAssertEqual(try ids(), ["n-e1", "n-e2", "n-e3"])

        for n in 4...10 { output += logic.receive(event(n), topic: "region.event.app", now: Double(n)) }
        // A fix on a topic the notifier does not handle writes nothing; its rejection waits with the batch.
        output += logic.receive(fusedLocation(id: "stray", t: 10, lat: 31.2, lon: 121.4), topic: "visit.truck-7", now: 10)
        try FileManager.default.removeItem(at: state)
        let failed = logic.flush(now: 10)
        XCTAssertEqual(failed.compactMap(\.errorReport).map(\.code), ["storage"], "one report for the episode")
        XCTAssertTrue(failed.compactMap(\.notification).isEmpty, "nothing of the failed batch is delivered")
        XCTAssertFalse(logic.acceptsInput)
        XCTAssertEqual(logic.healthState, .degraded)
        XCTAssertEqual(logic.healthCounters["heldEvents"], 8, "every message of the batch is held")
        XCTAssertEqual(try ids(), ["n-e1", "n-e2", "n-e3"])
        // What arrives meanwhile (the replay gate's release, or a runtime that fed it) waits behind them.
        output += logic.receive(event(11), topic: "region.event.app", now: 11)
        XCTAssertEqual(logic.healthCounters["heldEvents"], 9)

        output += logic.retryHeld(now: Date().timeIntervalSince1970)
        output += logic.flush(now: 12)
        XCTAssertTrue(logic.acceptsInput, "the outbox is back: input resumes")
        XCTAssertEqual(logic.healthState, .ok)
        output += logic.finish(now: 20)
        XCTAssertEqual(try ids(), (1...11).map { "n-e\($0)" }, "each event once, in order")
        let delivered = output.compactMap(\.notification).filter { $0.status == .delivered }.map(\.ref)
        XCTAssertEqual(delivered.count, Set(delivered).count, "no record twice")
        XCTAssertEqual(Set(delivered), Set((1...11).map { "e\($0)" }))
        XCTAssertEqual(output.compactMap(\.errorReport).filter { $0.code == "unexpectedType" }.map(\.ref), ["stray"],
                       "the stray fix is rejected once, after the batch is written")
    }

    /// A write that fails inside the batch undoes the writes of the events before it too; they
    /// are routed again with it, from the routing state the batch started from (the cooldown
    /// here), so none is suppressed or notified twice.
    func testAFailedWriteInsideTheBatchRoutesTheWholeBatchAgainFromItsStart() throws {
        let path = sinkPath
        let delivery = DeliveryService(directory: state, sinks: [("jsonl", { JSONLinesSink(path: path) })],
                                       policy: RetryPolicy(initialDelaySeconds: 0.001, maximumDelaySeconds: 0.01))
        var configuration = try NotifierConfiguration(catalog: MessageCatalog(locale: "en"))
        configuration.cooldownSeconds = 100
        var logic = try NotifierLogic(configuration: configuration, outbox: Outbox(directory: state), delivery: delivery)
        logic.commitsOnFlush = true
        delivery.start()
        XCTAssertTrue(delivery.drain(timeoutSeconds: 5), "the worker settles with nothing to do")
        var output: [Outbound] = []
        output += logic.receive(regionEventMessage(id: "a", t: 1, region: "r", event: .enter), topic: "region.event.app", now: 1)
        output += logic.receive(regionEventMessage(id: "b", t: 2, region: "r", event: .enter), topic: "region.event.app", now: 2)
        try FileManager.default.removeItem(at: state)
        // The next event of the same batch cannot open its savepoint on the removed file's
        // journal once the directory is gone; whichever write fails first, the batch is held.
        output += logic.receive(regionEventMessage(id: "c", t: 3, region: "s", event: .enter), topic: "region.event.app", now: 3)
        output += logic.flush(now: 3)
        XCTAssertFalse(logic.acceptsInput)
        XCTAssertEqual(logic.healthCounters["heldEvents"], 3)
        XCTAssertTrue(output.compactMap(\.notification).isEmpty, "neither the notification nor the suppression is published")
        output += logic.retryHeld(now: Date().timeIntervalSince1970)
        output += logic.finish(now: 10)
        XCTAssertEqual(try ids(), ["n-a", "n-c"], "b is within a's cooldown, once, as on the first attempt")
        XCTAssertEqual(output.compactMap(\.notification).filter { $0.status == .suppressed }.map(\.ref), ["b"])
    }

    func testRecordJSONIsWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var random = SystemRandomNumberGenerator()
        let texts = ["plain", "外滩 / 人民广场", "quote \" and \\ backslash", "tab\tnew\nline\r\u{8}\u{c}\u{1}\u{1f}\u{7f}", "😀", ""]
        for n in 0..<500 {
            func pick() -> String { texts[Int.random(in: 0..<texts.count, using: &random)] }
            func number() -> Double? {
                switch Int.random(in: 0..<5, using: &random) {
                case 0: return nil
                case 1: return Double(Int.random(in: -1000...1000, using: &random))
                case 2: return Double.random(in: -180...180, using: &random)
                case 3: return Double.random(in: 0...1e-4, using: &random)
                default: return Double.random(in: 1e15...1e22, using: &random)
                }
            }
            let kinds = NotificationKind.allCases
            let record = NotificationRecord(
                id: "n-\(n)-" + pick(), ref: pick(), kind: kinds[n % kinds.count], title: pick(), body: pick(), locale: pick(),
                t: Double.random(in: 0...2e9, using: &random), device: n % 3 == 0 ? nil : pick(), owner: n % 4 == 0 ? nil : pick(),
                region: n % 5 == 0 ? nil : pick(), regions: n % 6 == 0 ? [pick(), pick()] : nil, lat: number(), lon: number(),
                accuracyMeters: number(), distanceMeters: number())
            XCTAssertEqual(String(decoding: record.json(), as: UTF8.self), String(decoding: try encoder.encode(record), as: UTF8.self))
            XCTAssertEqual(try NotificationRecord.decode(record.json()), record)
        }
    }
}

import Foundation
import LocusProtocol
import LocusService
import LocusStore
import XCTest
@testable import LocusNotifier

/// With `commitsOnFlush` (the executable's setting) a burst of events is one transaction and
/// one sink write: nothing reaches the outbox's other connections or the sink before `flush`,
/// everything in outbox order after it, and one bad event loses only its own writes.
final class NotifierBatchTests: XCTestCase {
    private func logic(directory: URL, sinkPath: String) throws -> (NotifierLogic, DeliveryService) {
        let delivery = DeliveryService(directory: directory, sinks: [("jsonl", { JSONLinesSink(path: sinkPath) })],
                                       policy: RetryPolicy(initialDelaySeconds: 0.001, maximumDelaySeconds: 0.01))
        var logic = try NotifierLogic(configuration: NotifierConfiguration(catalog: MessageCatalog(locale: "en")),
                                      outbox: Outbox(directory: directory), delivery: delivery)
        logic.commitsOnFlush = true
        delivery.start()
        return (logic, delivery)
    }

    private func ids(_ path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try NotificationRecord.decode(Data($0.utf8)).id }
    }

    func testABurstIsCommittedAndWrittenOnceByFlush() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("n.jsonl").path
        var (logic, delivery) = try logic(directory: directory, sinkPath: path)
        XCTAssertTrue(delivery.drain(timeoutSeconds: 5))
        var output: [Outbound] = []
        for n in 1...200 {
            output += logic.receive(regionEventMessage(id: "e\(n)", t: Double(n), region: "r\(n % 7)", event: n % 2 == 1 ? .enter : .exit),
                                    topic: "region.event.app", now: Double(n))
        }
        XCTAssertTrue(output.compactMap(\.notification).isEmpty, "nothing is delivered before the batch commits")
        XCTAssertEqual(try ids(path), [])
        XCTAssertEqual(try Outbox(directory: directory).backlog(for: "jsonl"), 0, "other connections see no uncommitted notification")
        output += logic.flush(now: 201)
        XCTAssertEqual(output.compactMap(\.notification).filter { $0.status == .delivered }.map(\.ref), (1...200).map { "e\($0)" })
        XCTAssertEqual(try ids(path), (1...200).map { "n-e\($0)" }, "one write, in outbox order")
        XCTAssertEqual(try Outbox(directory: directory).backlog(for: "jsonl"), 0, "the cursor moved past the burst")
        _ = logic.finish(now: 300)
        XCTAssertEqual(logic.healthCounters["delivered"], 200)
    }

    func testARepeatedEventInTheBurstIsNotifiedOnce() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("n.jsonl").path
        var (logic, delivery) = try logic(directory: directory, sinkPath: path)
        XCTAssertTrue(delivery.drain(timeoutSeconds: 5))
        var output: [Outbound] = []
        for id in ["e1", "e2", "e1", "e3", "e2"] {
            output += logic.receive(regionEventMessage(id: id, t: 1, region: "r", event: .enter), topic: "region.event.app", now: 1)
        }
        output += logic.flush(now: 2)
        XCTAssertEqual(try ids(path), ["n-e1", "n-e2", "n-e3"])
        XCTAssertEqual(logic.healthCounters["duplicates"], 2)
        _ = logic.finish(now: 3)
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

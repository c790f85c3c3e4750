import Foundation
import LocusService
import LocusProtocol
import XCTest
@testable import LocusNotifier

final class DeliveryTests: XCTestCase {
    func testBackoffGrowsIsCappedAndJittered() {
        let policy = RetryPolicy(initialDelaySeconds: 0.5, multiplier: 2, maximumDelaySeconds: 60, jitterFraction: 0.5)
        XCTAssertEqual(policy.delaySeconds(attempt: 1, unit: 0), 0.5)
        XCTAssertEqual(policy.delaySeconds(attempt: 4, unit: 0), 4)
        XCTAssertEqual(policy.delaySeconds(attempt: 4, unit: 0.999), 2.002, accuracy: 1e-9)
        XCTAssertEqual(policy.delaySeconds(attempt: 40, unit: 0), 60)
        XCTAssertEqual(policy.delaySeconds(attempt: 10_000, unit: 0), 60)
    }

    func testFlakySinkGetsEveryNotificationOnceInOrderAndReportsRetries() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let flaky = FlakySink(name: "flaky", failures: 3)
        let steady = FlakySink(name: "steady", failures: 0)
        let delivery = DeliveryService(directory: directory, sinks: [("flaky", { flaky }), ("steady", { steady })],
                                       policy: RetryPolicy(initialDelaySeconds: 0.001, maximumDelaySeconds: 0.01))
        var logic = try NotifierLogic(configuration: NotifierConfiguration(catalog: MessageCatalog(locale: "en")),
                                      outbox: Outbox(directory: directory), delivery: delivery)
        delivery.start()
        for n in 1...5 { _ = logic.receive(regionEventMessage(id: "e\(n)", t: Double(n), region: "r\(n)", event: .enter), topic: "region.event.app", now: 0) }
        let output = logic.finish(now: 10)
        XCTAssertEqual(flaky.delivered.map(\.id), (1...5).map { "n-e\($0)" })
        XCTAssertEqual(steady.delivered.map(\.id), (1...5).map { "n-e\($0)" })
        XCTAssertEqual(flaky.attempts, 8)
        let records = output.compactMap(\.notification)
        XCTAssertEqual(records.filter { $0.sink == "flaky" && $0.status == .retrying }.count, 3)
        XCTAssertEqual(records.filter { $0.sink == "flaky" && $0.status == .delivered }.map(\.ref), (1...5).map { "e\($0)" })
        XCTAssertEqual(output.compactMap(\.errorReport).map(\.code), ["sinkUnavailable"], "one report for the outage")
    }

    func testSinkSpecsParseAndNameRepeats() throws {
        let specs = try ["stdout", "jsonl:/tmp/a", "jsonl:/tmp/b", "webhook:http://127.0.0.1:8080/hook", "mqtt:localhost:1883", "desktop", "exec:cat"]
            .map { text throws(CatalogError) in try SinkSpec(parsing: text) }
        XCTAssertEqual(SinkSpec.names(specs), ["stdout", "jsonl", "jsonl-2", "webhook", "mqtt", "desktop", "exec"])
        XCTAssertEqual(specs[4], .mqtt(host: "localhost", port: 1883))
        for bad in ["smoke", "jsonl:", "webhook:ftp://x", "mqtt:host", "mqtt:host:0"] {
            XCTAssertThrowsError(try SinkSpec(parsing: bad), bad)
        }
    }

    func testWebhookURLsAreCheckedByLibcurl() throws {
        XCTAssertTrue(try WebhookURL("https://ntfy.example.org/locus").isHTTPS)
        XCTAssertFalse(try WebhookURL("http://[::1]:9000/a/b?c=1").isHTTPS)
        for bad in ["ftp://example.org/x", "https://", "http//example.org", "file:///etc/passwd"] {
            XCTAssertThrowsError(try WebhookURL(bad), bad)
        }
    }

    func testOwnTracksTransitionForEnterAndExitOnly() throws {
        var record = NotificationRecord(id: "n-e1", ref: "e1", kind: .exit, title: "t", body: "b", locale: "en", t: 1_700_000_000.7,
                                        device: "phone-ab", lat: 1.5, lon: 2.5, accuracyMeters: 12.4)
        record.region = "home"
        let transition = try XCTUnwrap(OwnTracksTransition(record, user: "alice"))
        XCTAssertEqual(transition.topic, "owntracks/alice/phone-ab/event")
        let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: transition.json()) as? [String: Any])
        XCTAssertEqual(payload["_type"] as? String, "transition")
        XCTAssertEqual(payload["event"] as? String, "leave")
        XCTAssertEqual(payload["desc"] as? String, "home")
        XCTAssertEqual(payload["tst"] as? Int, 1_700_000_000)
        XCTAssertEqual(payload["acc"] as? Int, 12)
        record.kind = .dwell
        XCTAssertNil(OwnTracksTransition(record, user: "alice"))
    }
}

import Foundation
import LocusService
import LocusProtocol
import XCTest
@testable import LocusNotifier

/// The notifier's catch-up after a restart: the `bus.replay` request, live events held until
/// the `bus.replayed` marker, then everything in event order, each event once.
final class ReplayGateTests: XCTestCase {
    private var directory: URL!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func makeLogic(requester: String = "notifier-1") throws -> (NotifierLogic, FlakySink) {
        var configuration = try NotifierConfiguration(catalog: MessageCatalog(locale: "en"))
        configuration.replay = ReplaySettings(requester: requester)
        let sink = FlakySink(name: "rec", failures: 0)
        let delivery = DeliveryService(directory: directory, sinks: [("rec", { sink })], policy: RetryPolicy())
        let logic = try NotifierLogic(configuration: configuration, outbox: Outbox(directory: directory), delivery: delivery)
        delivery.start()
        return (logic, sink)
    }

    private func event(_ id: String, t: Double) -> Message {
        regionEventMessage(id: id, t: t, region: "r-\(id)", event: .enter)
    }

    private func marker(count: Int) -> Message {
        Message(body: BusReplayed(re: "req", count: count).body, id: "m-\(UUID().uuidString)", t: 0, src: "bus/main")
    }

    private func requests(_ output: [Outbound]) -> [BusReplayRequest] {
        output.compactMap { outbound in
            guard outbound.topic == BusReplayRequest.topic, case .other(_, let fields) = outbound.body else { return nil }
            return try? BusReplayRequest(fields: fields)
        }
    }

    func testAFreshOutboxDoesNotReplayHistoryAndLetsEventsThrough() throws {
        var (logic, sink) = try makeLogic()
        XCTAssertTrue(logic.subscriptions.contains("bus.replayed.notifier-1"))
        XCTAssertTrue(logic.receive(event("early", t: 1), topic: "region.event.app", now: 1000).isEmpty)
        XCTAssertTrue(requests(logic.tick(now: 1000.2)).isEmpty, "a fresh outbox has nothing to catch up")
        _ = logic.receive(event("live", t: 2), topic: "region.event.app", now: 1001)
        _ = logic.finish(now: 1002)
        XCTAssertEqual(sink.delivered.map(\.ref), ["early", "live"], "what arrived before the first tick is released in order")
    }

    func testARestartAsksSinceTheLastEventHoldsLiveEventsAndMergesInEventOrder() throws {
        do {
            var (first, _) = try makeLogic(requester: "notifier-1")
            _ = first.tick(now: 1000)
            _ = first.receive(event("e1", t: 1), topic: "region.event.app", now: 1005)
            _ = first.finish(now: 1006)
        }
        var (logic, sink) = try makeLogic(requester: "notifier-2")
        // A live event forwarded before the bus handled the request arrives first.
        XCTAssertTrue(logic.receive(event("e4", t: 4), topic: "region.event.app", now: 1100).isEmpty)
        let sent = requests(logic.tick(now: 1100.2))
        XCTAssertEqual(sent, [BusReplayRequest(requester: "notifier-2", prefixes: ["region.event.", "visit.", "notify.request"],
                                               since: 1005 - 10)])
        // The replay: e1 (already handled before the restart), e2, e3; e4's copy is dropped by the subscriber.
        for (id, t) in [("e1", 1.0), ("e2", 2.0), ("e3", 3.0)] {
            XCTAssertTrue(logic.receive(event(id, t: t), topic: "region.event.app", now: 1100.3).isEmpty, "held until the marker")
        }
        XCTAssertTrue(sink.delivered.isEmpty)
        _ = logic.receive(marker(count: 3), topic: "bus.replayed.notifier-2", now: 1100.4)
        _ = logic.receive(event("e5", t: 5), topic: "region.event.app", now: 1100.5)
        _ = logic.finish(now: 1101)
        XCTAssertEqual(sink.delivered.map(\.ref), ["e2", "e3", "e4", "e5"], "nothing twice, order by event time")
        XCTAssertEqual(logic.healthCounters["duplicates"], 1)
        XCTAssertEqual(logic.healthCounters["replayedEvents"], 3)
    }

    func testAMissingMarkerIsAskedForAgainThenTheHeldEventsAreReleasedWithAnError() throws {
        let outbox = try Outbox(directory: directory)
        try outbox.noteEventReceived(at: 500)
        var (logic, sink) = try makeLogic()
        XCTAssertEqual(requests(logic.tick(now: 1000)).count, 1)
        _ = logic.receive(event("h1", t: 1), topic: "region.event.app", now: 1000.1)
        XCTAssertEqual(requests(logic.tick(now: 1000.5)).count, 0, "not overdue yet")
        XCTAssertEqual(requests(logic.tick(now: 1001)).count, 1, "second attempt")
        XCTAssertEqual(requests(logic.tick(now: 1002)).count, 1, "third attempt")
        XCTAssertTrue(sink.delivered.isEmpty)
        let last = logic.tick(now: 1003)
        XCTAssertEqual(last.compactMap { if case .error(let report) = $0.body { return report.code } else { return nil } }, ["replayTimeout"])
        _ = logic.finish(now: 1004)
        XCTAssertEqual(sink.delivered.map(\.ref), ["h1"])
    }

    func testNonEventTopicsAreNotHeld() throws {
        let outbox = try Outbox(directory: directory)
        try outbox.noteEventReceived(at: 500)
        var (logic, _) = try makeLogic()
        _ = logic.tick(now: 1000)
        let status = AuthStatus(client: "app", status: .always, accuracy: .full)
        _ = logic.receive(Message(body: .authStatus(status), id: "a1", t: 1, src: "bus/main"), topic: "auth.status.app", now: 1000.1)
        XCTAssertNil(logic.healthCounters["heldDuringReplay"], "authorization state is handled at once")
    }
}

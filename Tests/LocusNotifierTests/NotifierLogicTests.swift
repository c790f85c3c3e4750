import Foundation
import LocusService
import LocusProtocol
import XCTest
@testable import LocusNotifier

final class NotifierLogicTests: XCTestCase {
    private var directory: URL!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    /// Logic plus one recording sink; `finish` drains it.
    private func makeLogic(_ adjust: (inout NotifierConfiguration) -> Void = { _ in }, locale: String = "en") throws -> (NotifierLogic, FlakySink) {
        var configuration = try NotifierConfiguration(catalog: MessageCatalog(locale: locale))
        adjust(&configuration)
        let sink = FlakySink(name: "rec", failures: 0)
        let delivery = DeliveryService(directory: directory, sinks: [("rec", { sink })], policy: RetryPolicy())
        let logic = try NotifierLogic(configuration: configuration, outbox: Outbox(directory: directory), delivery: delivery)
        delivery.start()
        return (logic, sink)
    }

    func testDuplicateEventsYieldOneNotificationEachEvenAfterRestart() throws {
        var (logic, sink) = try makeLogic(locale: "zh-Hans")
        let events = [("e1", "外滩", RegionEventKind.enter), ("e2", "外滩", .exit), ("e3", "人民广场", .enter), ("e4", "人民广场", .exit)]
        for (index, (id, region, kind)) in (events + events).enumerated() {
            _ = logic.receive(regionEventMessage(id: id, t: Double(index), region: region, event: kind), topic: "region.event.app", now: 0)
        }
        _ = logic.finish(now: 10)
        XCTAssertEqual(sink.delivered.map(\.body), ["您已进入 外滩 附近", "您已离开 外滩 区域", "您已进入 人民广场 附近", "您已离开 人民广场 区域"])
        XCTAssertEqual(logic.healthCounters["duplicates"], 4)

        var (restarted, again) = try makeLogic(locale: "zh-Hans")
        _ = restarted.receive(regionEventMessage(id: "e1", t: 0, region: "外滩", event: .enter), topic: "region.event.app", now: 0)
        _ = restarted.finish(now: 10)
        XCTAssertTrue(again.delivered.isEmpty, "an event seen before the restart is still a duplicate")
    }

    func testCooldownSuppressesRepeatsPerRegionAndDevice() throws {
        var (logic, sink) = try makeLogic { $0.cooldownSeconds = 60 }
        var output: [Outbound] = []
        output += logic.receive(regionEventMessage(id: "a", t: 0, region: "r", event: .enter), topic: "region.event.app", now: 0)
        output += logic.receive(regionEventMessage(id: "b", t: 30, region: "r", event: .enter), topic: "region.event.app", now: 0)
        output += logic.receive(regionEventMessage(id: "c", t: 30, region: "r", event: .enter, device: "other"), topic: "region.event.app", now: 0)
        output += logic.receive(regionEventMessage(id: "d", t: 61, region: "r", event: .enter), topic: "region.event.app", now: 0)
        _ = logic.finish(now: 100)
        XCTAssertEqual(sink.delivered.map(\.ref), ["a", "c", "d"])
        XCTAssertEqual(output.compactMap(\.notification).map { "\($0.ref) \($0.status)" }, ["b suppressed"])
    }

    func testBurstOfEntriesIsMerged() throws {
        var (logic, sink) = try makeLogic { $0.mergeWindowSeconds = 5 }
        for (index, region) in ["a", "b", "c"].enumerated() {
            _ = logic.receive(regionEventMessage(id: "e\(index)", t: 100 + Double(index), region: region, event: .enter), topic: "region.event.app", now: 0)
        }
        _ = logic.receive(regionEventMessage(id: "x", t: 103, region: "a", event: .exit), topic: "region.event.app", now: 0)
        _ = logic.tick(now: 106)
        _ = logic.receive(regionEventMessage(id: "late", t: 200, region: "d", event: .enter), topic: "region.event.app", now: 0)
        _ = logic.finish(now: 200)
        XCTAssertEqual(sink.delivered.map(\.title), ["Left a", "3 regions entered", "Entered d"])
        XCTAssertEqual(sink.delivered[1].regions, ["a", "b", "c"])
        XCTAssertEqual(sink.delivered[1].body, "Entered a, b, c")
    }

    func testDestinationProgressStepsThenOneArrival() throws {
        var (logic, sink) = try makeLogic { $0.progressStepMeters = 1_000 }
        let set = Message(body: .other(type: "destination.set", fields: .object([
            "device": .string("truck-7"), "lat": .number(31.0), "lon": .number(121.0), "radius": .number(500),
        ])), id: "dest-1", t: 0, src: "cli/destination")
        _ = logic.receive(set, topic: "notify.request", now: 0)
        // Moving north towards the destination: 3.3 km, 3.1 km, 2.2 km, 1.5 km, 0.4 km, then inside again.
        let offsets = [-0.030, -0.028, -0.020, -0.0135, -0.0036, -0.001]
        for (index, offset) in offsets.enumerated() {
            _ = logic.receive(fusedLocation(id: "f\(index)", t: Double(index + 1), lat: 31.0 + offset, lon: 121.0),
                              topic: "location.fused.truck-7", now: 0)
        }
        _ = logic.finish(now: 10)
        XCTAssertEqual(sink.delivered.map(\.kind), [.destinationProgress, .destinationProgress, .destinationProgress, .destinationArrival])
        let distances = sink.delivered.compactMap(\.distanceMeters)
        XCTAssertEqual(distances.count, 4)
        XCTAssertEqual(distances[0], 3_326, accuracy: 5)
        XCTAssertLessThan(distances[3], 500)
        XCTAssertEqual(sink.delivered.last?.body, "You have arrived at your destination!")
    }

    func testMalformedRequestAndWrongTypeAreReportedAndOthersStillFlow() throws {
        var (logic, sink) = try makeLogic()
        let bad = Message(body: .other(type: "destination.set", fields: .object(["device": .string("d"), "lat": .number(95), "lon": .number(0)])),
                          id: "bad", t: 0, src: "x")
        let errors = logic.receive(bad, topic: "notify.request", now: 0).compactMap(\.errorReport)
            + logic.receive(fusedLocation(id: "f", t: 0, lat: 0, lon: 0), topic: "region.event.app", now: 0).compactMap(\.errorReport)
        XCTAssertEqual(errors.map(\.code), ["invalidRequest", "unexpectedType"])
        XCTAssertTrue(errors[0].message.contains("'lat'"))
        _ = logic.receive(regionEventMessage(id: "ok", t: 1, region: "r", event: .enter), topic: "region.event.app", now: 0)
        _ = logic.finish(now: 2)
        XCTAssertEqual(sink.delivered.map(\.ref), ["ok"])
    }

    func testAuthorizationChangeNotifiesOnlyOnChange() throws {
        var (logic, sink) = try makeLogic()
        func status(_ id: String, _ value: AuthorizationStatus) -> Message {
            Message(body: .authStatus(AuthStatus(client: "app", status: value, accuracy: .full)), id: id, t: 1, src: "bus/main")
        }
        for (id, value) in [("s1", AuthorizationStatus.whenInUse), ("s2", .whenInUse), ("s3", .denied)] {
            _ = logic.receive(status(id, value), topic: "auth.status.app", now: 0)
        }
        _ = logic.finish(now: 2)
        XCTAssertEqual(sink.delivered.map(\.body), ["app location access is now denied (full accuracy)"])
    }
}

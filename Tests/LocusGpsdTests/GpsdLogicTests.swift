import XCTest
@testable import LocusGpsd
import LocusProtocol

/// The bus side: which messages cross to the server, and that it never waits for it.
final class GpsdLogicTests: XCTestCase {
    private final class Collected: @unchecked Sendable {
        var wakes = 0
    }

    private func message(_ location: Location, t: Double = fixTime) -> Message {
        Message(body: .location(location), id: UUIDText.next(), t: t, src: "fusion/main", seq: 1)
    }

    private enum UUIDText {
        nonisolated(unsafe) static var counter = 0
        static func next() -> String {
            counter += 1
            return "m\(counter)"
        }
    }

    private func logic(_ change: (inout GpsdConfiguration) -> Void = { _ in }) -> (GpsdLogic, UpdateFeed) {
        let feed = UpdateFeed(capacity: 100) {}
        let configuration = GpsdConfiguration().with(change)
        return (GpsdLogic(configuration: configuration, feed: feed, statistics: GpsdStatistics()), feed)
    }

    func testServesTheFirstFourDevicesAndCountsTheRest() {
        var (logic, feed) = logic()
        for index in 0..<10 {
            let location = fusedFix("van\(index)")
            _ = logic.receive(message(location), topic: Topic.locationFused(location.device), now: fixTime)
        }
        XCTAssertEqual(feed.drain().map(\.device), ["van0", "van1", "van2", "van3"])
        XCTAssertEqual(logic.healthCounters["devicesServed"], 4)
        XCTAssertEqual(logic.healthCounters["devicesRefused"], 6)
    }

    func testNamedDevicesAreSubscribedOneByOneAndMatchedExactly() {
        var (logic, feed) = logic { $0.devices = ["car"] }
        XCTAssertEqual(logic.subscriptions, ["location.fused.car", "location.raw.car"])
        _ = logic.receive(message(fusedFix("car2")), topic: "location.fused.car2", now: fixTime)
        _ = logic.receive(message(fusedFix("car")), topic: "location.fused.car", now: fixTime)
        XCTAssertEqual(feed.drain().map(\.device), ["car"])
    }

    func testRawFixesOnlyLendSatellitesToServedDevices() {
        var (logic, feed) = logic()
        var raw = Location(device: "car", source: "gps", lat: 1, lon: 2, hacc: 4, sats: 8, hdop: 0.9)
        _ = logic.receive(message(raw), topic: Topic.locationRaw("car"), now: fixTime)
        XCTAssertEqual(feed.drain(), [])  // not served yet: a raw fix never admits a device
        _ = logic.receive(message(fusedFix("car")), topic: Topic.locationFused("car"), now: fixTime)
        _ = logic.receive(message(raw, t: fixTime + 1), topic: Topic.locationRaw("car"), now: fixTime)
        raw.sats = nil
        raw.hdop = nil
        _ = logic.receive(message(raw), topic: Topic.locationRaw("car"), now: fixTime)  // says nothing about satellites
        XCTAssertEqual(feed.drain(), [.fix(fusedFix("car"), t: fixTime), .satellites(device: "car", used: 8, hdop: 0.9, t: fixTime + 1)])
    }

    func testApproximateStreamReadsNothingElse() {
        var (logic, feed) = logic { $0.stream = .approx }
        XCTAssertEqual(logic.subscriptions, ["location.approx."])
        let approx = Location(device: "car", source: "fused", lat: 31.2, lon: 121.5, hacc: 1800, mode: "approx")
        _ = logic.receive(message(fusedFix("car")), topic: Topic.locationFused("car"), now: fixTime)
        _ = logic.receive(message(approx), topic: Topic.locationApprox("car"), now: fixTime)
        XCTAssertEqual(feed.drain(), [.fix(approx, t: fixTime)])
    }

    func testAFixFiledUnderAnotherDeviceIsReported() {
        var (logic, feed) = logic()
        let out = logic.receive(message(fusedFix("car")), topic: Topic.locationFused("van"), now: fixTime)
        XCTAssertEqual(out.first?.topic, "error.gpsd")
        XCTAssertEqual(feed.drain(), [])
        XCTAssertEqual(logic.healthCounters["mismatched"], 1)
    }

    func testFeedNeverBlocksAndDropsTheOldest() {
        let collected = Collected()
        let feed = UpdateFeed(capacity: 3) { collected.wakes += 1 }
        for index in 0..<5 { feed.deliver(.fix(fusedFix("car", lat: Double(index)), t: fixTime)) }
        XCTAssertEqual(collected.wakes, 1)  // only the first update found the queue empty
        XCTAssertEqual(feed.drain().map { if case .fix(let location, _) = $0 { location.lat } else { -1 } }, [2, 3, 4])
        XCTAssertEqual(feed.dropped, 2)
        feed.deliver(.fix(fusedFix(), t: fixTime))
        XCTAssertEqual(collected.wakes, 2)
    }

    func testDevicePathsAreSafeBoundedAndDistinct() {
        XCTAssertEqual(DevicePath.path(for: "car-7"), "locus://car-7")
        XCTAssertEqual(DevicePath.path(for: "van\"7/é"), "locus://van%227%2F%C3%A9")
        let long1 = String(repeating: "x", count: 150) + "1"
        let long2 = String(repeating: "x", count: 150) + "2"
        let path1 = DevicePath.path(for: long1)
        XCTAssertEqual(path1.utf8.count, 127)
        XCTAssertNotEqual(path1, DevicePath.path(for: long2))
        // A cut never splits a %XX escape.
        let escaped = DevicePath.path(for: String(repeating: "é", count: 60))
        XCTAssertLessThanOrEqual(escaped.utf8.count, 127)
        XCTAssertTrue(escaped.dropLast(9).hasSuffix("%A9"))
    }
}

import LocusService
import LocusProtocol
import XCTest
@testable import LocusProvider

final class ProviderLogicTests: XCTestCase {
    private func fixMessage(_ lat: Double, t: Double, device: String = "gps0") -> Message {
        Message(body: .location(Location(device: device, source: "gps", lat: lat, lon: 11, hacc: 5)), id: "f\(t)", t: t, src: "test")
    }

    func testAppliesControlForItsOwnDeviceOnly() {
        let status = SourceStatus()
        var logic = ProviderLogic(device: "gps0", plugin: "nmea", status: status)
        XCTAssertEqual(logic.subscriptions, ["control.gps0"])
        let other = Message(body: .control(Control(device: "gps01", paused: true)), id: "c1", t: 0, src: "test")
        XCTAssertEqual(logic.receive(other, topic: "control.gps01", now: 0), [])
        let published = logic.receive(fixMessage(48, t: 1), topic: "location.raw.gps0", now: 1)
        XCTAssertEqual(published.count, 1)
        XCTAssertEqual(published.first?.topic, "location.raw.gps0")
        XCTAssertEqual(published.first?.t, 1)

        let pause = Message(body: .control(Control(device: "gps0", paused: true)), id: "c2", t: 2, src: "test")
        XCTAssertEqual(logic.receive(pause, topic: "control.gps0", now: 2), [])
        XCTAssertEqual(logic.receive(fixMessage(48.1, t: 3), topic: "location.raw.gps0", now: 3), [])
        XCTAssertEqual(logic.healthCounters["filtered.paused"], 1)
        XCTAssertEqual(logic.healthDetail?["control"], "distanceFilter=none desiredAccuracy=none paused=true powerMode=normal")
        XCTAssertEqual(logic.healthDetail?["plugin"], "nmea")
    }

    func testHealthReportsNoFixFromTheSource() {
        let status = SourceStatus()
        let logic = ProviderLogic(device: "gps0", plugin: "nmea", status: status)
        XCTAssertEqual(logic.healthDetail?["fix"], "waiting")
        status.set(.noFix, note: "no fix")
        XCTAssertEqual(logic.healthDetail?["fix"], "no fix")
        XCTAssertEqual(logic.healthState, .degraded)
        status.set(.fix)
        XCTAssertEqual(logic.healthState, .ok)
    }

    func testSourceContextDeliversFixesStampedWithTheDevice() {
        let status = SourceStatus()
        let collected = Collected()
        let context = SourceContext(device: "car", stop: StopFlag(), status: status) { collected.append($0) }
        context.emit(Location(device: "ignored", source: "gps", lat: 1, lon: 2, hacc: 3), t: 42)
        context.finish()
        let items = collected.items
        XCTAssertEqual(items.count, 2)
        guard case let .deliver(topic, message) = items[0], case let .location(location) = message.body else {
            return XCTFail("expected a delivered location, got \(items[0])")
        }
        XCTAssertEqual(topic, "location.raw.car")
        XCTAssertEqual(location.device, "car")
        XCTAssertEqual(message.envelope.t, 42)
        guard case .finished = items[1] else { return XCTFail("expected finished") }
        XCTAssertEqual(status.snapshot.state, .finished)
    }
}

/// Thread-safe collector for items a context sends.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Injector.Item] = []
    func append(_ item: Injector.Item) {
        lock.lock()
        stored.append(item)
        lock.unlock()
    }
    var items: [Injector.Item] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The network plugins learn from the device's fused fixes: the logic hands them over.
final class FusedFixForwardingTests: XCTestCase {
    func testFusedFixesOfItsOwnDeviceReachTheMailboxOnly() {
        let mailbox = FusedFixMailbox(capacity: 2)
        var logic = ProviderLogic(device: "phone", plugin: "wifi", status: SourceStatus(), fusedFixes: mailbox)
        XCTAssertEqual(logic.subscriptions, ["control.phone", "location.fused.phone"])
        XCTAssertEqual(ProviderLogic(device: "phone", plugin: "nmea", status: SourceStatus()).subscriptions, ["control.phone"])
        func fused(_ device: String, t: Double) -> Message {
            Message(body: .location(Location(device: device, source: "fused", lat: 1, lon: 2, hacc: 4, mode: "3d")), id: "m\(t)", t: t, src: "fusion/main")
        }
        XCTAssertEqual(logic.receive(fused("phone", t: 1), topic: "location.fused.phone", now: 1), [], "never republished")
        XCTAssertEqual(logic.receive(fused("phone2", t: 2), topic: "location.fused.phone2", now: 2), [])
        XCTAssertEqual(logic.receive(fused("other", t: 3), topic: "location.fused.phone", now: 3), [], "a body naming another device")
        _ = logic.receive(fused("phone", t: 4), topic: "location.fused.phone", now: 4)
        _ = logic.receive(fused("phone", t: 5), topic: "location.fused.phone", now: 5)
        XCTAssertEqual(mailbox.take().map(\.t), [4, 5], "bounded: the newest are kept")
        XCTAssertTrue(mailbox.take().isEmpty)
        XCTAssertEqual(logic.healthCounters["fusedFixes"], 3)
    }
}

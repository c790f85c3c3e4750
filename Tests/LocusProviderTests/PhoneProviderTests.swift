import LocusNet
import LocusProtocol
import LocusService
import XCTest
@testable import LocusProvider

/// The phone door's answers (Traccar's statuses, Locus's token check) and the provider logic
/// serving many phones with one control policy each.
final class PhoneProviderTests: XCTestCase {
    private func source(tokens: DeviceTokens?) throws -> OsmAndSource {
        OsmAndSource(listener: try Listener.tcp(ListenAddress(host: "127.0.0.1", port: 0)), tokens: tokens)
    }

    private func request(_ target: String, json: String? = nil) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: json == nil ? "GET" : "POST", target: target, version: "HTTP/1.1",
                                          headers: json == nil ? [:] : ["content-type": "application/json"]),
                    body: Array((json ?? "").utf8))
    }

    func testAnswersAsTraccarDoesAndCountsEveryRefusal() throws {
        let tokens = DeviceTokens(["van-3": "0123456789abcdef"])
        let door = try source(tokens: tokens)
        defer { door.listener.close() }
        let collected = Collected()
        let status = SourceStatus()
        let context = SourceContext(device: "local", stop: StopFlag(), status: status) { collected.append($0) }
        let intake = PhoneIntake(plugin: "osmand", mapping: door.mapping, allowed: nil, maximumDevices: 10, context: context)
        let t = Int(Date().timeIntervalSince1970)
        let good = door.answer(request("/?id=van-3&lat=1&lon=2&accuracy=5&timestamp=\(t)&token=0123456789abcdef"), intake: intake)
        XCTAssertEqual(good, HTTPResponse(status: 200))
        XCTAssertEqual(good.serialized(), Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        XCTAssertEqual(door.answer(request("/?id=van-3&lat=1&lon=2&accuracy=5&token=wrong"), intake: intake).status, 401)
        XCTAssertEqual(door.answer(request("/?id=van-3&lat=1&lon=2&accuracy=5"), intake: intake).status, 401)
        XCTAssertEqual(door.answer(request("/?id=stranger&lat=1&lon=2&token=0123456789abcdef"), intake: intake).status, 400)
        XCTAssertEqual(door.answer(request("/", json: #"{"device_id":"stranger","location":{"timestamp":"2023-11-14T22:13:20Z"}}"#), intake: intake).status, 404)
        XCTAssertEqual(door.answer(request("/?id=van-3&lat=95&lon=2&token=0123456789abcdef"), intake: intake).status, 400)
        XCTAssertEqual(door.answer(request("/?id=van-3&lat=1&lon=2&token=0123456789abcdef"), intake: intake).status, 400, "no accuracy")
        XCTAssertEqual(door.answer(request("/?id=van-3&batt=40&token=0123456789abcdef"), intake: intake).status, 200, "a heartbeat")

        let counters = status.snapshot.counters
        XCTAssertEqual(counters["received"], 8)
        XCTAssertEqual(counters["fixes"], 1)
        XCTAssertEqual(counters["refused.unauthenticated"], 2)
        XCTAssertEqual(counters["refused.unknownDevice"], 2)
        XCTAssertEqual(counters["refused.outOfRange"], 1)
        XCTAssertEqual(counters["refused.noAccuracy"], 1)
        XCTAssertEqual(counters["ignored.noPosition"], 1)
        let problems = collected.items.compactMap { item -> String? in
            if case let .problem(code, _) = item { return code }
            return nil
        }
        XCTAssertEqual(problems, ["unauthenticated", "unauthenticated", "unknownDevice", "unknownDevice", "outOfRange", "noAccuracy"])
        guard case let .deliver(topic, message) = collected.items.first, case .location(let location) = message.body else {
            return XCTFail("the good report was not delivered")
        }
        XCTAssertEqual(topic, "location.raw.van-3")
        XCTAssertEqual(location.device, "van-3")
        XCTAssertEqual(message.envelope.t, Double(t))
    }

    func testAllowedDevicesAndTheDeviceLimitAreEnforced() throws {
        let collected = Collected()
        let status = SourceStatus()
        let context = SourceContext(device: "local", stop: StopFlag(), status: status) { collected.append($0) }
        var mapping = PhoneMapping()
        mapping.assumedHacc = 30
        let intake = PhoneIntake(plugin: "owntracks", mapping: mapping, allowed: ["a", "b", "c"], maximumDevices: 2, context: context)
        XCTAssertNil(intake.accept(PhoneFix(device: "a", t: 1, lat: 1, lon: 1)))
        XCTAssertNil(intake.accept(PhoneFix(device: "b", t: 1, lat: 1, lon: 1, battery: 12)))
        XCTAssertEqual(intake.accept(PhoneFix(device: "c", t: 1, lat: 1, lon: 1))?.code, .unknownDevice, "a third device")
        XCTAssertEqual(intake.accept(PhoneFix(device: "z", t: 1, lat: 1, lon: 1))?.code, .unknownDevice, "not allowed")
        XCTAssertNil(intake.accept(PhoneFix(device: "a", t: 2, lat: 1, lon: 1)))
        XCTAssertEqual(status.snapshot.counters["devices"], 2)
        XCTAssertEqual(status.snapshot.counters["battery.b"], 12)
        XCTAssertEqual(status.snapshot.counters["refused.unknownDevice"], 2)
    }

    func testOneControlPolicyPerPhone() {
        var logic = ProviderLogic(device: "local", plugin: "owntracks", status: SourceStatus(), namesDevices: true)
        XCTAssertEqual(logic.subscriptions, ["control."])
        func fix(_ device: String, _ t: Double) -> Message {
            Message(body: .location(Location(device: device, source: "phone", lat: 1, lon: 1, hacc: 5)), id: "\(device)-\(t)", t: t, src: "test")
        }
        let pause = Message(body: .control(Control(device: "alice", paused: true)), id: "c", t: 0, src: "test")
        XCTAssertEqual(logic.receive(pause, topic: "control.alice", now: 0), [])
        XCTAssertEqual(logic.receive(fix("alice", 1), topic: "location.raw.alice", now: 1), [])
        XCTAssertEqual(logic.receive(fix("bob", 1), topic: "location.raw.bob", now: 1).map(\.topic), ["location.raw.bob"])
        XCTAssertEqual(logic.receive(fix("bob", 2), topic: "location.raw.alice", now: 2), [], "a topic that does not match its fix")
        XCTAssertTrue(logic.policy(for: "alice").paused)
        XCTAssertFalse(logic.policy(for: "bob").paused)
        XCTAssertEqual(logic.healthCounters["devices"], 2)
        XCTAssertEqual(logic.healthDetail?["control"], "1 of 2 device(s) under control")
    }
}

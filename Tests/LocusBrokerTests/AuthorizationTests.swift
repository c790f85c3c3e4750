import Foundation
import LocusBroker
import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// Pure authorization logic: subscription grants, publish rules, request and set handling.
final class AuthorizationTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testGrantsForEverythingAvoidPreciseTopicsForReducedClients() {
        let reduced = ReceivePolicy.client(name: "app", tier: .reduced, authorized: true, scope: nil)
        let grants = reduced.grants(for: [])
        let samples = ["location.fused.a", "location.raw.a", "visit.a", "region.event.app", "location.significant.a",
                       "location.approx.a", "health.bus", "auth.status.app", "locator", "region.state.app", "region.state.app2",
                       "auth.status.other", "motion.a"]
        for topic in samples {
            let matched = grants.contains { bytes(topic).starts(with: $0) }
            XCTAssertEqual(matched, reduced.mayReceive(topic: bytes(topic)), topic)
        }
        XCTAssertEqual(reduced.grants(for: bytes("location.")), [bytes("location.approx.")])
        XCTAssertEqual(reduced.grants(for: bytes("location.fused.")), [])
        XCTAssertEqual(reduced.grants(for: bytes("location.approx.t")), [bytes("location.approx.t")])
        let none = ReceivePolicy.client(name: "app", tier: .none, authorized: false, scope: nil)
        XCTAssertTrue(none.grants(for: bytes("location.")).isEmpty)
        XCTAssertTrue(none.grants(for: bytes("region.state.")).isEmpty, "notDetermined: no region.state at all")
        let full = ReceivePolicy.client(name: "app", tier: .full, authorized: true, scope: nil)
        XCTAssertEqual(full.grants(for: bytes("location.")), [bytes("location.")])
        XCTAssertEqual(ReceivePolicy.everything.grants(for: []), [[]])
    }

    func testPublishRulesByRole() {
        let app = ClientIdentity(name: "app", roles: [])
        let gps = ClientIdentity(name: "gps", roles: [.provider])
        let fusion = ClientIdentity(name: "fusion", roles: [.service])
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("location.raw.x"), sender: app), .forward)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("location.raw.x"), sender: gps), .forward)
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("auth.status.app"), sender: fusion), .forward)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("auth.cmd"), sender: app), .authCommand)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("region.cmd"), sender: app), .regionCommand)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("location.fused.x"), sender: fusion), .forward)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("health.geofence"), sender: fusion), .forward)
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("health.geofence"), sender: app), .forward)
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("error.fusion"), sender: gps), .forward)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("health.provider"), sender: gps), .forward)
        XCTAssertEqual(PublishDecision.decide(topic: bytes("region.cmd"), sender: fusion), .regionCommand)
    }

    func testMalformedManifestsAreReportedAndLeftOut() throws {
        let key = try CurveKeyPair.generate().publicKey
        let other = try CurveKeyPair.generate().publicKey
        let json = """
        {"clients": [{"name": "bad", "publicKey": "\(key)", "manifest": {"whenInUse": "", "colour": "x"}},
                     {"name": "good", "publicKey": "\(other)", "manifest": {"whenInUse": "map"}}]}
        """
        let list = try AllowList.parse(Data(json.utf8))
        XCTAssertNil(list.byName["bad"])
        XCTAssertEqual(list.byName["good"]?.manifest.whenInUse, "map")
        XCTAssertEqual(list.problems.count, 1)
        XCTAssertTrue(list.problems[0].contains("bad"))
    }

    func testRequestsNeedDescriptionsAndFloodsAreRefusedWithoutStateChange() throws {
        let key = try CurveKeyPair.generate().publicKey
        let entry = AllowListEntry(name: "app", publicKey: key, roles: [], manifest: UsageManifest(whenInUse: "map"),
                                   restricted: false, autoGrant: nil)
        var authority = Authority(allowList: AllowList(entries: [entry]))
        let app = entry.identity
        func request(_ level: String, purpose: String? = nil, id: String) -> Message {
            Message(body: .authRequest(AuthRequest(client: "app", level: level, purpose: purpose)), id: id, t: 1, src: "app")
        }
        XCTAssertEqual(authority.handle(request("always", id: "a"), fields: [:], from: app, now: 1).errors.first?.code,
                       "missingUsageDescription")
        XCTAssertEqual(authority.handle(request("whenInUse", id: "b"), fields: [:], from: app, now: 1).changed, ["app"])
        XCTAssertEqual(authority.record("app").pending.count, 1)
        for index in 0..<10 { _ = authority.handle(request("whenInUse", id: "c\(index)"), fields: [:], from: app, now: 2) }
        XCTAssertEqual(authority.handle(request("whenInUse", id: "d"), fields: [:], from: app, now: 2).errors.first?.code, "rateLimited")
        XCTAssertEqual(authority.record("app").status, AuthorizationStatus.notDetermined)
        let set = Message(body: .authSet(AuthSet(client: "app", status: .always, accuracy: .full)), id: "e", t: 1, src: "app")
        XCTAssertEqual(authority.handle(set, fields: [:], from: app, now: 3).errors.first?.code, "notAuthorized")
        XCTAssertEqual(authority.tier(of: app, now: 3), AccessTier.none)
    }
}

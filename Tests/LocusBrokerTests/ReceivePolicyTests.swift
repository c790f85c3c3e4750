import Foundation
import LocusBroker
import LocusBus
import LocusProtocol
import XCTest

/// Isolation between clients as prefixes: owners see their own topics only, device scopes
/// narrow every device family, and a grant matches exactly what the policy allows.
final class ReceivePolicyTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Every sample topic matches the grants of a request exactly when the request matches it and the policy allows it.
    private func assertGrantsAgree(_ policy: ReceivePolicy, request: String, samples: [String],
                                   file: StaticString = #filePath, line: UInt = #line) {
        let grants = policy.grants(for: bytes(request))
        for topic in samples {
            let granted = grants.contains { bytes(topic).starts(with: $0) }
            let expected = bytes(topic).starts(with: bytes(request)) && policy.mayReceive(topic: bytes(topic))
            XCTAssertEqual(granted, expected, "\(request) → \(topic)", file: file, line: line)
        }
    }

    private let samples = [
        "location.fused.van-1", "location.fused.truck-7", "location.raw.van-2", "location.approx.truck-7",
        "location.significant.van-9", "location.other.van-1", "visit.van-1", "visit.truck-7", "motion.van-1", "motion.truck-7",
        "control.van-1", "control.truck-7", "region.state.app", "region.state.app2", "region.state.other",
        "region.event.app", "region.event.other", "auth.status.app", "auth.status.other", "auth.pending.app",
        "auth.pending.bob", "health.geofence", "error.bus", "notify.jsonl", "region.cmd", "regional", "locator",
    ]

    func testOwnersSeeTheirOwnTopicsOnly() {
        let app = ReceivePolicy.client(name: "app", tier: .full, authorized: true, scope: nil)
        for request in ["", "region.", "region.state.", "region.state.app", "auth.", "region.event.o"] {
            assertGrantsAgree(app, request: request, samples: samples)
        }
        XCTAssertTrue(app.mayReceive(topic: bytes("region.state.app")))
        XCTAssertFalse(app.mayReceive(topic: bytes("region.state.other")))
        XCTAssertFalse(app.mayReceive(topic: bytes("auth.status.other")))
        XCTAssertEqual(app.grants(for: bytes("region.state.")), [bytes("region.state.app")])
        let admin = ReceivePolicy.client(name: "ops", tier: .none, authorized: false, scope: nil, allOwners: true)
        XCTAssertTrue(admin.mayReceive(topic: bytes("auth.pending.bob")), "locus auth pending sees every request")
        XCTAssertTrue(admin.mayReceive(topic: bytes("region.state.other")))
        XCTAssertFalse(admin.mayReceive(topic: bytes("region.event.other")), "events still need the full tier")
    }

    func testDeviceScopesNarrowEveryDeviceFamily() throws {
        let scope = try DeviceScope(parsing: ["van-*", "truck-7"])
        let vans = ReceivePolicy.client(name: "fleet", tier: .full, authorized: true, scope: try DeviceScope(parsing: ["van-*"]))
        for request in ["", "location.", "location.fused.", "motion.", "control.v", "visit."] {
            assertGrantsAgree(vans, request: request, samples: samples)
        }
        XCTAssertFalse(vans.mayReceive(topic: bytes("location.fused.truck-7")))
        XCTAssertFalse(vans.mayReceive(topic: bytes("motion.truck-7")))
        XCTAssertFalse(vans.mayReceive(topic: bytes("location.other.van-1")), "unknown location kinds are not granted to a scope")
        XCTAssertTrue(vans.mayReceive(topic: bytes("location.fused.van-1")))
        let reduced = ReceivePolicy.client(name: "fleet", tier: .reduced, authorized: true, scope: scope)
        XCTAssertEqual(Set(reduced.grants(for: bytes("location."))),
                       [bytes("location.approx.van-"), bytes("location.approx.truck-7")])
        XCTAssertTrue(scope.covers(device: bytes("truck-7")) && !scope.covers(device: bytes("truck-70")),
                      "publishing is checked on the whole id")
        XCTAssertThrowsError(try DeviceScope(parsing: ["v*n"]))
        XCTAssertEqual(try DeviceScope(parsing: ["van-*", "van-1", "*"]).grantSuffixes, [[]])
    }

    func testProvidersPublishOnlyForTheirDevices() throws {
        let gps = ClientIdentity(name: "gps0", roles: [.provider], devices: try DeviceScope(parsing: ["gps0"]))
        XCTAssertEqual(PublishDecision.decide(topic: bytes("location.raw.gps0"), sender: gps), .forward)
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("location.raw.truck-7"), sender: gps), .forward)
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("location.raw.gps00"), sender: gps), .forward)
        XCTAssertNotEqual(PublishDecision.decide(topic: bytes("motion.truck-7"), sender: gps), .forward)
    }

    func testNamesThatStartWithAnAppsNameAreLeftOut() throws {
        func entry(_ name: String, _ roles: Set<ClientRole> = []) throws -> AllowListEntry {
            AllowListEntry(name: name, publicKey: try CurveKeyPair.generate().publicKey, roles: roles,
                           manifest: UsageManifest(), restricted: false, autoGrant: nil)
        }
        let list = AllowList(entries: [try entry("app"), try entry("app2"), try entry("fusion", [.service]), try entry("fusion-2")])
        XCTAssertNotNil(list.byName["app"])
        XCTAssertNil(list.byName["app2"], "app would receive app2's region and authorization topics")
        XCTAssertNotNil(list.byName["fusion-2"], "a service sees everything anyway: no conflict")
        XCTAssertEqual(list.problems.count, 1)
        XCTAssertEqual(list.ownerConflict(owner: bytes("app2")), "app")
        XCTAssertNil(list.ownerConflict(owner: bytes("app")))
        XCTAssertNil(list.ownerConflict(owner: bytes("ap")))
    }
}

import Foundation
import LocusBroker
import LocusBus
import LocusProtocol
import XCTest

/// The authority of a bus without an allow-list: clients named by id, requests waiting for
/// the person, the single-user policy, and where its state is kept by default.
final class LocalAuthorityTests: XCTestCase {
    private let local = ClientIdentity(name: "local", roles: Set(ClientRole.allCases))

    private func request(_ client: String, _ level: String, purpose: String? = nil, id: String) -> Message {
        Message(body: .authRequest(AuthRequest(client: client, level: level, purpose: purpose)), id: id, t: 1, src: "cli")
    }

    private func set(_ client: String, _ status: AuthorizationStatus, id: String) -> Message {
        Message(body: .authSet(AuthSet(client: client, status: status, accuracy: .full)), id: id, t: 1, src: "cli")
    }

    func testAnyIdAsksAndThePersonDecides() {
        var authority = Authority.local()
        XCTAssertEqual(authority.record("world").status, .notDetermined)
        let asked = authority.handle(request("world", "always", purpose: "import", id: "a"), fields: [:], from: local, now: 1)
        XCTAssertEqual(asked.changed, ["world"])
        XCTAssertEqual(authority.record("world").pending.map(\.level), ["always"])
        XCTAssertEqual(authority.record("world").pending.first?.description, "import")
        XCTAssertEqual(authority.record("world").status, .notDetermined, "a request alone decides nothing")
        let granted = authority.handle(set("world", .always, id: "b"), fields: [:], from: local, now: 2)
        XCTAssertEqual(granted.changed, ["world"])
        XCTAssertTrue(granted.errors.isEmpty)
        XCTAssertEqual(authority.record("world").status, .always)
        XCTAssertTrue(authority.record("world").pending.isEmpty, "the decision answers the request")
        XCTAssertEqual(authority.handle(set("no such id", .always, id: "c"), fields: [:], from: local, now: 3).errors.first?.code,
                       "unknownClient", "an id must fit a topic")
    }

    func testGrantLocalDecidesRequestsUpToItsLevel() {
        var whenInUse = Authority.local(localGrant: .whenInUse)
        XCTAssertEqual(whenInUse.record("robot").status, .whenInUse, "the policy is the status of an undecided client")
        _ = whenInUse.handle(request("robot", "always", id: "a"), fields: [:], from: local, now: 1)
        XCTAssertEqual(whenInUse.record("robot").pending.map(\.level), ["always"], "always is above the policy: it waits")
        var always = Authority.local(localGrant: .always)
        XCTAssertEqual(always.handle(request("kiosk", "always", id: "b"), fields: [:], from: local, now: 1).changed, ["kiosk"])
        XCTAssertEqual(always.record("kiosk").status, .always)
        XCTAssertTrue(always.record("kiosk").pending.isEmpty)
        _ = always.handle(set("kiosk", .notDetermined, id: "c"), fields: [:], from: local, now: 2)
        XCTAssertEqual(always.record("kiosk").status, .notDetermined, "a revoke holds against the policy")
    }

    func testWithAnAllowListOnlyItsEntriesAreClients() throws {
        let entry = AllowListEntry(name: "app", publicKey: try CurveKeyPair.generate().publicKey, roles: [],
                                   manifest: UsageManifest(always: "geofences"), restricted: false, autoGrant: nil)
        var authority = Authority(allowList: AllowList(entries: [entry]))
        XCTAssertEqual(authority.handle(set("world", .always, id: "a"), fields: [:], from: local, now: 1).errors.first?.code,
                       "unknownClient")
        XCTAssertEqual(authority.handle(request("app", "always", id: "b"), fields: [:], from: local, now: 1).changed, ["app"],
                       "an administrator may ask on an app's behalf")
        let other = ClientIdentity(name: "other", roles: [])
        XCTAssertEqual(authority.handle(request("app", "always", id: "c"), fields: [:], from: other, now: 1).errors.first?.code,
                       "forged")
    }

    func testStateDirectoryDefaults() {
        let runtime = ["XDG_RUNTIME_DIR": "/run/user/7", "XDG_STATE_HOME": "/home/u/.local/state"]
        let user = BusStateDirectory.resolve(explicit: nil, subEndpoints: ["ipc:///run/user/7/locus/sub"], environment: runtime)
        XCTAssertEqual(user.path, "/home/u/.local/state/locus")
        let other = BusStateDirectory.resolve(explicit: nil, subEndpoints: ["ipc:///tmp/t1/sub"], environment: runtime)
        XCTAssertEqual(other.path, "/tmp/t1", "another bus keeps its grants beside its own endpoints")
        let noState = BusStateDirectory.resolve(explicit: nil, subEndpoints: ["ipc:///run/user/7/locus/sub"],
                                                environment: ["XDG_RUNTIME_DIR": "/run/user/7", "HOME": "/home/u"])
        XCTAssertEqual(noState.path, "/home/u/.local/state/locus", "where locus up keeps the other services' state")
        XCTAssertNil(BusStateDirectory.resolve(explicit: nil, subEndpoints: ["tcp://*:5561"], environment: runtime).path)
        XCTAssertEqual(BusStateDirectory.resolve(explicit: "/var/lib/locus/bus", subEndpoints: [], environment: runtime).path,
                       "/var/lib/locus/bus")
    }
}

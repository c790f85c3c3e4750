import Foundation
import LocusBroker
import LocusBus
import LocusNATS
import LocusProtocol
import XCTest

/// The bus's authorization as NATS subject permissions (`NATSPermissions`): for every client
/// and every topic of the families the bus guards, a NATS server allows exactly what the
/// ZeroMQ bus would (`ReceivePolicy`, `PublishDecision`), and the section renders them.
final class NATSPermissionsTests: XCTestCase {
    /// What the servers deliver: the topic's subject, with the partition token they insert in positions.
    private func delivered(_ topic: String) -> String {
        let subject = SubjectMapping.subject(forTopic: topic)
        for root in SubjectMapping.partitionedPrefixes where subject.hasPrefix(root) {
            return root + "0." + subject.dropFirst(root.utf8.count)
        }
        return subject
    }

    /// NATS subject matching: `*` one token, `>` the rest.
    private func matches(_ pattern: String, _ subject: String) -> Bool {
        let p = pattern.split(separator: ".", omittingEmptySubsequences: false)
        let s = subject.split(separator: ".", omittingEmptySubsequences: false)
        for (index, token) in p.enumerated() {
            if token == ">" { return s.count > index }
            guard index < s.count, token == "*" || token == s[index] else { return false }
        }
        return p.count == s.count
    }

    private func allows(_ list: [String], denied: [String] = [], _ subject: String) -> Bool {
        list.contains { matches($0, subject) } && !denied.contains { matches($0, subject) }
    }

    private let samples = [
        "location.fused.van-1", "location.fused.truck-7", "location.raw.van-2", "location.approx.truck-7",
        "location.significant.van-9", "visit.van-1", "visit.truck-7", "motion.van-1", "motion.truck-7",
        "control.van-1", "control.truck-7", "region.state.app", "region.state.other", "region.event.app",
        "region.event.other", "auth.status.app", "auth.status.other", "auth.pending.app", "auth.pending.bob",
        "health.geofence", "error.bus", "notify.jsonl", "region.cmd", "bus.replayed.n1",
    ]

    private func entry(_ name: String, roles: Set<ClientRole> = [], devices: [String]? = nil) throws -> AllowListEntry {
        AllowListEntry(name: name, publicKey: String(repeating: "a", count: 40), roles: roles, manifest: UsageManifest(),
                       restricted: false, autoGrant: nil, devices: try devices.map { try DeviceScope(parsing: $0) })
    }

    private func record(_ status: AuthorizationStatus, _ accuracy: AccuracyAuthorization) -> ClientAuthorization {
        var record = ClientAuthorization()
        record.status = status
        record.accuracy = accuracy
        return record
    }

    private func assertReceivesAsTheBus(_ client: AllowListEntry, _ authorization: ClientAuthorization,
                                        file: StaticString = #filePath, line: UInt = #line) {
        let nats = NATSPermissions.client(client, authorization: authorization, now: 0)
        let tier = authorization.tier(now: 0)
        let policy = ReceivePolicy.client(name: client.name, tier: tier,
                                          authorized: authorization.status == .whenInUse || authorization.status == .always,
                                          scope: client.devices, allOwners: client.roles.contains(.admin))
        for topic in samples {
            XCTAssertEqual(allows(nats.subscribe, delivered(topic)), policy.mayReceive(topic: Array(topic.utf8)),
                           "\(client.name) \(tier) receives \(topic)", file: file, line: line)
        }
    }

    func testEveryTierReceivesWhatTheBusLetsItReceive() throws {
        let app = try entry("app")
        for (status, accuracy) in [(AuthorizationStatus.notDetermined, AccuracyAuthorization.full), (.denied, .full),
                                   (.whenInUse, .reduced), (.always, .reduced), (.whenInUse, .full), (.always, .full)] {
            assertReceivesAsTheBus(app, record(status, accuracy))
        }
    }

    func testADeviceScopeNarrowsEveryDeviceFamily() throws {
        let van = try entry("van", devices: ["van-1", "truck-7"])
        assertReceivesAsTheBus(van, record(.always, .full))
        assertReceivesAsTheBus(van, record(.always, .reduced))
        let ops = try entry("ops", roles: [.admin])
        assertReceivesAsTheBus(ops, record(.notDetermined, .full))
        assertReceivesAsTheBus(ops, record(.always, .full))
    }

    func testAReducedClientMaySubscribeToApproximateLocationsOnly() throws {
        let nats = NATSPermissions.client(try entry("app"), authorization: record(.whenInUse, .reduced), now: 0)
        XCTAssertTrue(nats.subscribe.contains("location.approx.>"))
        XCTAssertFalse(nats.subscribe.contains { $0 == ">" || $0 == "location.>" || $0.hasPrefix("location.fused") })
        XCTAssertTrue(nats.subscribe.contains("_INBOX_app.>"), "its own inbox, no other")
        XCTAssertFalse(nats.subscribe.contains { $0.hasPrefix("_INBOX.") || $0 == "_INBOX.>" })
    }

    func testEveryClientPublishesWhatTheBusForwards() throws {
        let topics = ["location.raw.van-1", "location.raw.van-2", "motion.van-1", "location.fused.van-1", "control.van-1",
                      "health.provider", "health.geofence", "error.provider", "auth.status.app", "auth.pending.app",
                      "auth.cmd", "region.cmd", "notify.request", "notify.jsonl"]
        for client in [try entry("app"), try entry("gps", roles: [.provider]), try entry("van", roles: [.provider], devices: ["van-1"]),
                       try entry("fusion", roles: [.service])] {
            let nats = NATSPermissions.client(client, authorization: record(.always, .full), now: 0)
            for topic in topics {
                let forwarded: Bool
                switch PublishDecision.decide(topic: Array(topic.utf8), sender: client.identity) {
                case .forward, .authCommand, .regionCommand: forwarded = true
                case .refuse: forwarded = false
                }
                XCTAssertEqual(allows(nats.publish, denied: nats.publishDenied, delivered(topic)), forwarded, "\(client.name) publishes \(topic)")
            }
        }
        XCTAssertTrue(allows(NATSPermissions.authority.publish, "auth.status.app"), "the authority alone publishes statuses")
    }

    func testAPrefixScopeIsLeftOutNotWidened() throws {
        let nats = NATSPermissions.client(try entry("van", roles: [.provider], devices: ["van-*", "truck-7"]),
                                          authorization: record(.always, .full), now: 0)
        XCTAssertEqual(nats.problems.count, 1)
        XCTAssertFalse(nats.publish.contains("location.raw.>"))
        XCTAssertTrue(allows(nats.publish, delivered("location.raw.truck-7")))
        XCTAssertFalse(allows(nats.publish, delivered("location.raw.van-1")))
    }

    func testAProviderKeepsTheLastPositionsOfItsOwnDevicesOnly() throws {
        let scoped = NATSPermissions.client(try entry("van", roles: [.provider], devices: ["van-1"]), authorization: record(.always, .full), now: 0)
        XCTAssertTrue(allows(scoped.publish, "last.location.raw.van-1"))
        XCTAssertFalse(allows(scoped.publish, "last.location.raw.van-2"))
        XCTAssertFalse(allows(scoped.publish, "last.location.fused.van-1"))
        let whole = NATSPermissions.client(try entry("gps", roles: [.provider]), authorization: record(.always, .full), now: 0)
        XCTAssertTrue(allows(whole.publish, "last.location.raw.any"))
        let app = NATSPermissions.client(try entry("app"), authorization: record(.always, .full), now: 0)
        XCTAssertFalse(allows(app.publish, "last.location.raw.any"))
    }

    func testTheSectionListsEveryUserWithItsPermissions() throws {
        let users = [NATSAuthorizationSection.User(name: "svc", passwordHash: "$2b$11$abc", permissions: .service),
                     NATSAuthorizationSection.User(name: "app", passwordHash: "$2b$11$def",
                                                   permissions: NATSPermissions(publish: ["auth.cmd"], subscribe: ["location.approx.>"]))]
        let text = NATSAuthorizationSection.render(users, comment: ["made by a test"])
        XCTAssertTrue(text.hasPrefix("# made by a test\nauthorization {\n    users = [\n"))
        XCTAssertTrue(text.contains("{user: \"app\", password: \"$2b$11$def\", permissions: {\n            publish: {allow: [\"auth.cmd\"]}\n            subscribe: {allow: [\"location.approx.>\"]}\n        }}"))
        XCTAssertTrue(text.contains("publish: {allow: [\">\"], deny: [\"auth.status.>\", \"auth.pending.>\"]}"))
        XCTAssertLessThan(text.range(of: "\"app\"")!.lowerBound, text.range(of: "\"svc\"")!.lowerBound, "sorted by name")
    }
}

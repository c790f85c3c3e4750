import Testing
@testable import LocusNATS

/// The topic ↔ subject rule (docs/nats.md, "Subjects"): ids become one token with NATS's
/// reserved bytes escaped, and every topic comes back unchanged.
struct SubjectMappingTests {
    @Test func plainIDsAreUnchanged() {
        #expect(SubjectMapping.subject(forTopic: "location.fused.car1") == "location.fused.car1")
        #expect(SubjectMapping.subject(forTopic: "region.cmd") == "region.cmd")
    }

    @Test func reservedBytesInAnIDAreEscapedIntoOneToken() {
        #expect(SubjectMapping.subject(forTopic: "location.raw.car.1") == "location.raw.car%2E1")
        #expect(SubjectMapping.subject(forTopic: "region.event.a*b>c%d") == "region.event.a%2Ab%3Ec%25d")
    }

    @Test func everyTopicRoundTrips() {
        let topics = ["location.raw.car.1", "region.event.a*b>c%d", "health.fusion", "region.cmd", "notify.request",
                      "auth.status.app.x", "error.geofence", "bus.replayed.n-1", "custom.thing.*", "control.dévice.é",
                      "a..b", "location.fused.%41"]
        for topic in topics {
            #expect(SubjectMapping.topic(forSubject: SubjectMapping.subject(forTopic: topic)) == topic, "\(topic)")
        }
    }

    @Test func thePartitionTokenTheServerInsertsIsDropped() {
        #expect(SubjectMapping.topic(forSubject: "location.fused.2.car%2E1") == "location.fused.car.1")
        #expect(SubjectMapping.topic(forSubject: "location.raw.0.x") == "location.raw.x")
        #expect(SubjectMapping.topic(forSubject: "location.approx.2.x") == nil, "approx is not partitioned: two tokens are no id")
    }

    @Test func brokenEscapesAreRefused() {
        #expect(SubjectMapping.topic(forSubject: "location.raw.a%2") == nil)
        #expect(SubjectMapping.topic(forSubject: "location.raw.a%ZZ") == nil)
    }

    @Test func prefixesBecomeSubjectFilters() {
        #expect(SubjectMapping.filters(forPrefix: "location.fused.") == ["location.fused.>"])
        #expect(SubjectMapping.filters(forPrefix: "region.cmd") == ["region.cmd", "region.cmd.>"])
        #expect(SubjectMapping.filters(forPrefix: "") == [">"])
        #expect(SubjectMapping.partitionFilter(forPrefix: "location.fused.", partition: 2) == "location.fused.2.>")
    }

    @Test func streamsCoverWhatTheBusKeeps() {
        #expect(StreamLayout.route(forTopic: "location.fused.car") == .durable(StreamLayout.fixes))
        #expect(StreamLayout.route(forTopic: "region.event.owner") == .durable(StreamLayout.events))
        #expect(StreamLayout.route(forTopic: "region.cmd") == .durable(StreamLayout.events))
        #expect(StreamLayout.route(forTopic: "auth.status.app") == .lastValue(StreamLayout.state))
        #expect(StreamLayout.route(forTopic: "health.fusion") == .lastValue(StreamLayout.state))
        #expect(StreamLayout.route(forTopic: "control.car") == .plain)
        #expect(StreamLayout.start(forPrefix: "region.cmd") == .everything)
        #expect(StreamLayout.start(forPrefix: "location.fused.") == .lastPerSubject)
        #expect(StreamLayout.start(forPrefix: "region.event.") == .new)
        #expect(StreamLayout.consumerName(service: "geofence", instance: "p1", prefix: "location.fused.") == "geofence_p1_location_fused_")
    }

    @Test func endpointsAndCredentials() throws {
        #expect(try NATSEndpoint("nats://127.0.0.1:4222,nats://127.0.0.1:4223").servers.count == 2)
        #expect(throws: NATSError.self) { try NATSEndpoint("tcp://127.0.0.1:5560") }
        #expect(throws: NATSError.self) { try NATSEndpoint("nats://u:p@127.0.0.1:4222") }
        #expect(NATSEndpoint.isNATS("nats://h:1") && !NATSEndpoint.isNATS("ipc:///tmp/x"))
    }
}

import Testing
@testable import LocusNATS

/// `--fix-delivery plain` (docs/nats.md, "Fix delivery"): positions leave JetStream, every
/// other flow keeps its stream, and the last-value cache is written at most once per
/// interval per subject without ever losing a device's newest position.
struct FixDeliveryTests {
    @Test func plainTakesOnlyPositionsOutOfJetStream() {
        let live = StreamLayout.Route.live(lastValues: StreamLayout.lastFixes)
        #expect(StreamLayout.route(forTopic: "location.fused.car", delivery: .plain) == live)
        #expect(StreamLayout.route(forTopic: "location.raw.car", delivery: .plain) == live)
        #expect(StreamLayout.route(forPrefix: "location.fused.", delivery: .plain) == live)
        #expect(StreamLayout.route(forTopic: "region.event.owner", delivery: .plain) == .durable(StreamLayout.events))
        #expect(StreamLayout.route(forTopic: "location.approx.car", delivery: .plain) == .lastValue(StreamLayout.state))
        #expect(StreamLayout.route(forTopic: "location.fused.car", delivery: .durable) == .durable(StreamLayout.fixes))
        #expect(!StreamLayout.streams(for: .plain).contains(StreamLayout.fixes))
        #expect(StreamLayout.streams(for: .plain).contains(StreamLayout.lastFixes))
        #expect(StreamLayout.streams(for: .durable) == StreamLayout.all)
        #expect(FixDelivery(option: "Plain") == .plain)
        #expect(FixDelivery(option: "replicated") == nil)
    }

    @Test func lastValueSubjectsRoundTrip() {
        let subject = "location.fused.car%2E1"
        #expect(StreamLayout.lastValueSubject(forSubject: subject) == "last.location.fused.car%2E1")
        #expect(StreamLayout.subject(forLastValueSubject: StreamLayout.lastValueSubject(forSubject: subject)) == subject)
        #expect(StreamLayout.subject(forLastValueSubject: "location.fused.car") == nil)
    }

    /// Records what the writer sends (it calls back on the caller's thread).
    final class Sent: @unchecked Sendable {
        var writes: [(subject: String, body: [UInt8])] = []
    }

    @Test func lastPositionsAreWrittenAtMostOncePerIntervalAndNeverLost() {
        let sent = Sent()
        var writer = LastPositionWriter(intervalSeconds: 5) { sent.writes.append(($0, $1)) }
        writer.note(subject: "location.fused.a", body: [1], now: 100)  // first: written at once
        writer.note(subject: "location.fused.a", body: [2], now: 101)
        writer.note(subject: "location.fused.a", body: [3], now: 102)  // held back, newest wins
        writer.note(subject: "location.fused.b", body: [9], now: 102)
        #expect(sent.writes.map(\.body) == [[1], [9]])
        writer.writeDue(now: 103)
        #expect(sent.writes.count == 2, "a's interval has not passed")
        writer.writeDue(now: 105)
        #expect(sent.writes.map(\.subject).last == "last.location.fused.a")
        #expect(sent.writes.last?.body == [3])
        writer.writeDue(now: 200)
        #expect(sent.writes.count == 3, "nothing waits any more")
        writer.note(subject: "location.fused.b", body: [10], now: 104)
        writer.writeAll(now: 104)
        #expect(sent.writes.last?.body == [10], "at stop the newest position goes even inside its interval")
        #expect(writer.writes == 4)
    }
}

import CZeroMQ
import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// `BusSubscriber.receive` on a real socket pair: framing errors, duplicates, `seq` gaps and
/// the shard check that runs on the topic before any decoding.
final class SubscriberScreeningTests: XCTestCase {
    private var context: ZMQContext!
    private var publisher: ZMQSocket!
    private var subscriber: BusSubscriber!

    override func setUpWithError() throws {
        context = ZMQContext()
        let endpoint = "inproc://subscriber-screening-\(UUID().uuidString)"
        publisher = try ZMQSocket(context: context, type: .xpub)
        try publisher.setHighWaterMarks(send: 0, receive: 0)  // no drops: the tests count every message
        try publisher.bind(endpoint)
        subscriber = try BusSubscriber(context: context, endpoint: endpoint, prefixes: [""])
        // An XPUB hands over each subscription: once it has arrived nothing sent is lost to a slow join.
        let subscription = try XCTUnwrap(try publisher.receiveMultipart())
        XCTAssertEqual(subscription, [[1]])
    }

    override func tearDown() {
        subscriber.socket.close()
        publisher.close()
        context = nil
    }

    private func body(device: String, id: String, seq: Int, src: String = "fusion/a") -> String {
        let message = Message(body: .location(Location(device: device, source: "fused", lat: 48.1, lon: 11.5, hacc: 5)),
                              id: id, t: 1_700_000_000, src: src, seq: seq, tseq: seq)
        return String(decoding: MessageCodec.encode(message), as: UTF8.self)
    }

    private func send(_ frames: [String]) throws {
        for (index, frame) in frames.enumerated() {
            try publisher.send(Array(frame.utf8), more: index < frames.count - 1)
        }
    }

    /// Sends a marker message, then receives until it arrives: everything sent before it is then handled.
    private func drain() throws -> [BusSubscriber.Received] {
        try send(["marker", body(device: "marker", id: "marker-\(UUID().uuidString)", seq: 0, src: "marker")])
        var all: [BusSubscriber.Received] = []
        while true {
            guard let received = try subscriber.receive(dontWait: false) else { continue }
            if case .message("marker", _, _) = received { return all }
            all.append(received)
        }
    }

    private func rejection(_ received: BusSubscriber.Received?) -> (topic: String?, error: ProtocolError)? {
        if case let .rejected(topic, error)? = received { return (topic, error) }
        return nil
    }

    func testWrongFrameCountsAreRejectedWithTheTopicAndCount() throws {
        try send(["location.fused.a"])
        try send(["location.fused.b", "{}", "extra"])
        let received = try drain()
        XCTAssertEqual(received.count, 2)
        let one = try XCTUnwrap(rejection(received[0]))
        XCTAssertEqual(one.topic, "location.fused.a")
        XCTAssertEqual(one.error, ProtocolError(code: .invalidJSON, message: "expected 2 frames (topic, body), got 1"))
        let three = try XCTUnwrap(rejection(received[1]))
        XCTAssertEqual(three.topic, "location.fused.b")
        XCTAssertEqual(three.error.message, "expected 2 frames (topic, body), got 3")
    }

    func testMessagesDecodeFromTheFramesAndRawIsKeptOnlyWhenAsked() throws {
        let text = body(device: "d1", id: "m1", seq: 1)
        try send(["location.fused.d1", text])
        let received = try drain()
        XCTAssertEqual(received.count, 1)
        guard case let .message(topic, message, raw) = received[0] else { return XCTFail("\(received[0])") }
        XCTAssertEqual(topic, "location.fused.d1")
        XCTAssertEqual(message, try MessageCodec.decode(text))
        XCTAssertEqual(raw, Array(text.utf8))
        subscriber.keepsRawBody = false
        try send(["location.fused.d1", body(device: "d1", id: "m2", seq: 2)])
        let later = try drain()
        XCTAssertEqual(later.count, 1)
        guard case let .message(_, second, secondRaw) = later[0] else { return XCTFail("\(later[0])") }
        XCTAssertEqual(second.envelope.id, "m2")
        XCTAssertEqual(secondRaw, [])
    }

    func testInvalidBodiesAreRejectedWithTheCodecsError() throws {
        try send(["location.fused.d1", #"{"v":1,"type":"location"}"#])
        let received = try drain()
        let rejected = try XCTUnwrap(rejection(received.first))
        XCTAssertEqual(rejected.topic, "location.fused.d1")
        var expected: ProtocolError?
        do { _ = try MessageCodec.decode(#"{"v":1,"type":"location"}"#) } catch { expected = error }
        XCTAssertEqual(rejected.error, expected)
    }

    func testRepeatsAreDroppedAndGapsCounted() throws {
        try send(["location.fused.d1", body(device: "d1", id: "a", seq: 1)])
        try send(["location.fused.d1", body(device: "d1", id: "a", seq: 1)])
        try send(["location.fused.d1", body(device: "d1", id: "b", seq: 4)])
        let received = try drain()
        XCTAssertEqual(received.count, 3)
        guard case .duplicate = received[1] else { return XCTFail("\(received[1])") }
        XCTAssertEqual(subscriber.duplicates, 1)
        XCTAssertEqual(subscriber.sequences.missing, 2)
    }

    func testOtherShardsMessagesAreSkippedUndecodedAndCountNoGap() throws {
        let shard = Shard(index: 0, count: 2)
        subscriber.shard = shard
        let devices = (0..<40).map { "dev-\($0)" }
        let mine = devices.filter { shard.owns(device: $0) }
        let theirs = devices.filter { !shard.owns(device: $0) }
        XCTAssertFalse(mine.isEmpty)
        XCTAssertFalse(theirs.isEmpty)
        for (seq, device) in devices.enumerated() {
            try send(["location.fused.\(device)", body(device: device, id: "id-\(seq)", seq: seq + 1)])
        }
        // Another shard's body is not even read: an invalid one is skipped, not rejected.
        try send(["location.fused.\(theirs[0])", "not json"])
        // Topics without a device reach every shard.
        try send(["region.cmd", #"{"broken""#])
        let received = try drain()
        var delivered: [String] = []
        var rejectedTopics: [String?] = []
        for item in received {
            switch item {
            case let .message(_, message, _):
                guard case let .location(location) = message.body else { return XCTFail("\(message)") }
                delivered.append(location.device)
            case let .rejected(topic, _): rejectedTopics.append(topic)
            case .duplicate: XCTFail("no repeats were sent")
            }
        }
        XCTAssertEqual(delivered, mine)
        XCTAssertEqual(rejectedTopics, ["region.cmd"])
        XCTAssertEqual(subscriber.otherShard, theirs.count + 1)
        XCTAssertEqual(subscriber.sequences.missing, 0, "skipping on purpose is not a loss")
    }

    func testAFloodForOtherShardsHandsControlBackWithNil() throws {
        let shard = Shard(index: 0, count: 2)
        subscriber.shard = shard
        let device = try XCTUnwrap((0..<100).map { "dev-\($0)" }.first { !shard.owns(device: $0) })
        let body = body(device: device, id: "x", seq: 1)
        for _ in 0..<5_000 { try send(["location.fused.\(device)", body]) }
        try send(["location.fused.\(device)", body])
        // The first call skips its bounded share and returns; the rest arrive at later calls.
        var calls = 0
        while subscriber.otherShard < 5_001 {
            XCTAssertNil(try subscriber.receive(dontWait: true))
            calls += 1
            XCTAssertLessThan(calls, 10_000)
        }
        XCTAssertGreaterThanOrEqual(calls, 2)
    }
}

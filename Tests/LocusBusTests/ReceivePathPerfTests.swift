import CZeroMQ
import Foundation
import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// Prints the receive path's cost per message on a real inproc socket: the copying receive
/// (frames into arrays, then decode) next to `BusSubscriber.receive` (decode from the lent
/// frames) and a sharded receiver. Asserts correctness only; the figures are for a person and
/// are comparable only with each other (a debug build inflates the decoding share; the release
/// figure that counts is `locus bench geofence`'s CPU per fix).
final class ReceivePathPerfTests: XCTestCase {
    private func fleet(_ count: Int) -> [(topic: [UInt8], body: [UInt8])] {
        (0..<count).map { number in
            let device = "d\(number % 10_000)"
            let fix = Location(device: device, source: "fused", lat: 48.137154 + Double(number) * 1e-7,
                               lon: 11.576124 - Double(number) * 1e-7, hacc: 8)
            let message = Message(body: .location(fix), id: "5c1e0f7a93b2d416-\(number + 1)", t: 1_715_012_345 + Double(number),
                                  src: "bench/fleet", seq: number + 1)
            return (Array(Topic.locationFused(device).utf8), MessageCodec.encode(message))
        }
    }

    /// Queues every message on an XPUB whose one subscriber has joined, then times `drain` on this thread.
    private func nanosecondsPerMessage(_ frames: [(topic: [UInt8], body: [UInt8])], shard: Shard = .whole,
                                       drain: (BusSubscriber) throws -> Int) throws -> Double {
        let context = ZMQContext()
        let endpoint = "inproc://receive-path-perf-\(UUID().uuidString)"
        let publisher = try ZMQSocket(context: context, type: .xpub)
        try publisher.setHighWaterMarks(send: 0, receive: 0)
        try publisher.bind(endpoint)
        let subscriber = try BusSubscriber(context: context, endpoint: endpoint, prefixes: ["location."], highWaterMark: 0)
        subscriber.shard = shard
        subscriber.keepsRawBody = false
        defer {
            subscriber.socket.close()
            publisher.close()
            withExtendedLifetime(context) {}  // terminating the context waits for its sockets: close them first
        }
        _ = try publisher.receiveMultipart()  // the subscription: from here on nothing is dropped
        for frame in frames {
            try publisher.send(frame.topic, more: true)
            try publisher.send(frame.body)
        }
        let start = Self.threadCPUNanoseconds()
        let handled = try drain(subscriber)
        let spent = Self.threadCPUNanoseconds() - start
        XCTAssertEqual(handled, frames.count)
        return Double(spent) / Double(frames.count)
    }

    private static func threadCPUNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    func testReceivePathPerf() throws {
        #if DEBUG
        let count = 5_000
        #else
        let count = 300_000
        #endif
        let frames = fleet(count)
        var copying = Double.infinity, lending = Double.infinity, sharded = Double.infinity
        for _ in 0..<3 {
            copying = min(copying, try nanosecondsPerMessage(frames) { subscriber in
                var handled = 0
                var recent = RecentIDs()
                var sequences = SequenceTracker()
                while handled < count, let parts = try subscriber.socket.receiveMultipart(dontWait: false) {
                    let topic = String(decoding: parts[0], as: UTF8.self)
                    let message = try MessageCodec.decode(parts[1])
                    XCTAssertTrue(recent.insert(message.envelope.id))
                    sequences.observe(src: message.envelope.src, topic: topic, tseq: message.envelope.tseq)
                    if !topic.isEmpty { handled += 1 }
                }
                return handled
            })
            lending = min(lending, try nanosecondsPerMessage(frames) { subscriber in
                var handled = 0
                while handled < count, let received = try subscriber.receive(dontWait: false) {
                    guard case .message = received else { throw ProtocolError(code: .invalidJSON, message: "\(received)") }
                    handled += 1
                }
                XCTAssertEqual(subscriber.sequences.missing, 0)
                return handled
            })
            sharded = min(sharded, try nanosecondsPerMessage(frames, shard: Shard(index: 0, count: 4)) { subscriber in
                var handled = 0
                // Not blocking: a blocking receive would wait past a final message for another shard.
                while subscriber.otherShard + handled < count {
                    if case .message? = try subscriber.receive(dontWait: true) { handled += 1 }
                }
                XCTAssertEqual(subscriber.sequences.missing, 0)
                return handled + subscriber.otherShard
            })
        }
        print(String(format: "receive path, ns per location message: copying receive + decode %.0f, BusSubscriber.receive %.0f, "
                     + "as shard 0/4 (three quarters skipped undecoded) %.0f", copying, lending, sharded))
    }
}

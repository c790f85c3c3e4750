import Foundation
@testable import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// The reader thread a busy service receives on: batches in publishing order with repeats
/// dropped, a bounded queue that holds the reader back, and a stop that ends it even then.
final class BusReaderTests: XCTestCase {
    /// Takes batches until `count` messages arrived or `timeout` passed; also returns the
    /// largest number of messages one `take` found.
    private func collect(_ reader: BusReader, count: Int, timeout: Double = 10) throws -> (messages: [Message], mostQueued: Int) {
        var poller = Poller()
        poller.add(fileDescriptor: reader.readyFD)
        var messages: [Message] = []
        var mostQueued = 0
        let deadline = Date().timeIntervalSince1970 + timeout
        while messages.count < count && Date().timeIntervalSince1970 < deadline {
            _ = try poller.poll(timeoutMilliseconds: 100)
            let (batches, failure) = reader.take()
            XCTAssertNil(failure)
            mostQueued = max(mostQueued, batches.reduce(0) { $0 + $1.count })
            for batch in batches {
                for case let .message(_, message, _) in batch { messages.append(message) }
            }
        }
        return (messages, mostQueued)
    }

    /// A publisher, a live "test." subscription on `bus`, and a started reader on it.
    private func startReader(on bus: BrokerHarness, maximumBatch: Int, maximumQueued: Int) throws
        -> (publisher: BusPublisher, subscriber: BusSubscriber, reader: BusReader) {
        let publisher = try bus.publisher()
        let subscriber = try bus.subscriber("test.")
        try bus.waitUntilLive(subscriber, publisher: publisher, topic: "test.probe")
        let reader = BusReader(subscriber: subscriber, maximumBatch: maximumBatch, maximumQueued: maximumQueued)
        reader.start()
        return (publisher, subscriber, reader)
    }

    func testBatchesArriveInOrderAndRepeatsAreDropped() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let (publisher, _, reader) = try startReader(on: bus, maximumBatch: 64, maximumQueued: 2)
        defer { reader.stop() }

        var sent: [String] = []
        for number in 0..<1_000 {
            let message = try publisher.publish(sampleLocation(lat: 30 + Double(number) / 1_000), topic: "test.fix", t: Double(number))
            sent.append(message.envelope.id)
            if number % 100 == 0 {
                // The same message again, as a last-value replay would deliver it.
                try publisher.send(topic: "test.fix", body: MessageCodec.encode(message))
            }
        }
        let (messages, mostQueued) = try collect(reader, count: sent.count)
        XCTAssertEqual(messages.map(\.envelope.id), sent)
        XCTAssertLessThanOrEqual(mostQueued, 2 * 64)
        XCTAssertEqual(reader.counts.duplicates, 10)
    }

    func testFullQueueHoldsTheReaderAndStopStillEndsIt() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let (publisher, subscriber, reader) = try startReader(on: bus, maximumBatch: 10, maximumQueued: 1)
        for number in 0..<500 { try publisher.publish(sampleLocation(), topic: "test.fix", t: Double(number)) }

        // Nobody takes: the reader fills its one batch and waits, holding everything else on the socket.
        var poller = Poller()
        poller.add(fileDescriptor: reader.readyFD)
        XCTAssertTrue(try poller.poll(timeoutMilliseconds: 5_000)[0], "no batch within 5 s")
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            reader.stop()
            stopped.signal()
        }.start()
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success, "stop() did not end a reader waiting on a full queue")
        let (batches, _) = reader.take()
        let held = batches.reduce(0) { $0 + $1.count }
        XCTAssertGreaterThan(held, 0)
        XCTAssertLessThanOrEqual(held, 10, "the reader queued beyond its bound")
        // The socket is the caller's again and still holds what the reader left.
        XCTAssertNotNil(try bus.waitFor(subscriber) { topic, _ in topic == "test.fix" })
    }

    /// A drain keeps taking what arrives while its body works, so a slow consumer under a
    /// flood handles many of the reader's batches in one go (one commit for the geofence),
    /// up to its limit.
    func testDrainTakesWhatArrivesWhileItsBodyWorks() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let (publisher, _, reader) = try startReader(on: bus, maximumBatch: 100, maximumQueued: 100)
        defer { reader.stop() }
        var poller = Poller()
        poller.add(fileDescriptor: reader.readyFD)
        let later = 2_000
        var sent = 0

        /// Drains with `limit`; while the first message is handled, `later` more arrive and queue up.
        func drainWhileMoreArrive(limit: Int) throws -> (handed: Int, queuedMeanwhile: Bool) {
            try publisher.publish(sampleLocation(), topic: "test.fix", t: Double(sent))
            sent += 1
            XCTAssertTrue(try poller.poll(timeoutMilliseconds: 5_000)[0], "no batch within 5 s")
            var queuedMeanwhile = false
            var first = true
            let handed = try reader.drain(upTo: limit) { _ in
                guard first else { return }
                first = false
                for _ in 0..<later {
                    try? publisher.publish(sampleLocation(), topic: "test.fix", t: Double(sent))
                    sent += 1
                }
                let deadline = Date().timeIntervalSince1970 + 10
                while reader.queuedCount < later && Date().timeIntervalSince1970 < deadline {
                    _ = try? poller.poll(timeoutMilliseconds: 10)
                }
                queuedMeanwhile = reader.queuedCount >= later
            }
            return (handed, queuedMeanwhile)
        }

        let unlimited = try drainWhileMoreArrive(limit: 1_000_000)
        XCTAssertTrue(unlimited.queuedMeanwhile, "the reader did not queue the later messages within 10 s")
        XCTAssertEqual(unlimited.handed, later + 1)
        XCTAssertEqual(reader.queuedCount, 0)

        let limited = try drainWhileMoreArrive(limit: 1)
        XCTAssertTrue(limited.queuedMeanwhile)
        XCTAssertEqual(limited.handed, 1, "the limit was reached: what arrived meanwhile waits for the next drain")
        XCTAssertEqual(reader.queuedCount, later)
    }
}

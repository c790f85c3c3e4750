import Foundation
@testable import LocusBus
import LocusProtocol
import XCTest

/// The reader thread a busy service receives on: batches in publishing order with repeats
/// dropped, a bounded queue that holds the reader back, and a stop that ends it even then.
final class BusReaderTests: XCTestCase {
    /// Takes batches until `count` messages arrived or `timeout` passed; also returns the
    /// largest number of batches one `take` found.
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
            mostQueued = max(mostQueued, batches.count)
            for batch in batches {
                for case let .message(_, message, _) in batch { messages.append(message) }
            }
        }
        return (messages, mostQueued)
    }

    func testBatchesArriveInOrderAndRepeatsAreDropped() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let publisher = try bus.publisher()
        let subscriber = try bus.subscriber("test.")
        try bus.waitUntilLive(subscriber, publisher: publisher, topic: "test.probe")
        let reader = BusReader(subscriber: subscriber, maximumBatch: 64, maximumQueued: 2)
        reader.start()
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
        XCTAssertLessThanOrEqual(mostQueued, 2)
        XCTAssertEqual(reader.counts.duplicates, 10)
    }

    func testFullQueueHoldsTheReaderAndStopStillEndsIt() throws {
        let bus = BrokerHarness()
        defer { bus.stop() }
        let publisher = try bus.publisher()
        let subscriber = try bus.subscriber("test.")
        try bus.waitUntilLive(subscriber, publisher: publisher, topic: "test.probe")
        let reader = BusReader(subscriber: subscriber, maximumBatch: 10, maximumQueued: 1)
        reader.start()
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
        XCTAssertEqual(batches.count, 1)
        XCTAssertLessThanOrEqual(batches.first?.count ?? 0, 10)
        // The socket is the caller's again and still holds what the reader left.
        XCTAssertNotNil(try bus.waitFor(subscriber) { topic, _ in topic == "test.fix" })
    }
}

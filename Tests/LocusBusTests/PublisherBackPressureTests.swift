import CZeroMQ
import Foundation
import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// A publisher whose queue towards the bus is full holds messages back instead of losing
/// them: an XPUB drops silently at its high-water mark unless told not to. After the bus
/// comes back, the resend ring meets the same full queue.
final class PublisherBackPressureTests: XCTestCase {
    private let context = ZMQContext()
    private var directory = ""
    private var endpoint = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "locus-backpressure-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        endpoint = "ipc://\(directory)/pub"
    }

    override func tearDown() {
        context.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A bus's end as the broker's frontend is: an XSUB with a queue of 20, subscribed to
    /// everything, that reads only when the test says so.
    private func bus() throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, type: .xsub)
        try socket.setOption(ZMQ_RCVHWM, 20)
        try socket.bind(endpoint)
        _ = try socket.send([1])
        return socket
    }

    private func publisher(source: String) throws -> BusPublisher {
        try BusPublisher(context: context, endpoint: endpoint, source: source, highWaterMark: 20)
    }

    /// The XSUB hands its subscription to a new connection only when its own thread enters
    /// libzmq, as the broker's poll loop does all the time.
    private func connect(_ publisher: BusPublisher, to bus: ZMQSocket) throws {
        let deadline = Date().timeIntervalSince1970 + 10
        while !publisher.connected && Date().timeIntervalSince1970 < deadline {
            _ = try bus.receiveMultipart(dontWait: true)
            try publisher.pump()
            usleep(1_000)
        }
        XCTAssertTrue(publisher.connected, "the publisher never saw the bus's subscription")
    }

    private func publish(_ publisher: BusPublisher, count: Int, topic: String) throws {
        for n in 1...count {
            try publisher.publish(.other(type: "probe", fields: .object(["n": .number(Double(n))])), topic: topic, t: Double(n))
        }
    }

    /// Reads what arrives and pumps the publisher, as the bus and a service loop would, until
    /// `done` says so (or 30 s pass); collects each message's `seq`.
    private func serve(_ socket: ZMQSocket, _ publisher: BusPublisher, into sequence: inout [Int],
                       until done: (_ sequence: [Int]) -> Bool) throws {
        let deadline = Date().timeIntervalSince1970 + 30
        while !done(sequence) && Date().timeIntervalSince1970 < deadline {
            while let frames = try socket.receiveMultipart(dontWait: true) {
                guard frames.count == 2, let seq = try MessageCodec.decode(frames[1]).envelope.seq else {
                    return XCTFail("unexpected frames \(frames.map(\.count))")
                }
                sequence.append(seq)
            }
            try publisher.pump()
            usleep(200)
        }
    }

    func testABusThatReadsLateStillGetsEveryMessageInOrder() throws {
        let bus = try bus()
        defer { bus.close() }
        let publisher = try publisher(source: "test/burst")
        defer { publisher.socket.close() }
        try connect(publisher, to: bus)

        let burst = 20_000
        try publish(publisher, count: burst, topic: "data.burst")
        XCTAssertGreaterThan(publisher.pendingCount, 0, "the burst should have filled the queue towards the bus")

        var sequence: [Int] = []
        try serve(bus, publisher, into: &sequence) { $0.count >= burst }
        XCTAssertEqual(sequence.count, burst, "messages lost: \(burst - sequence.count)")
        let firstWrong = zip(sequence, 1...burst).first { $0.0 != $0.1 }
        XCTAssertNil(firstWrong, "out of order or repeated: seq \(firstWrong?.0 ?? 0) where \(firstWrong?.1 ?? 0) belonged")
        XCTAssertEqual(publisher.dropped, 0)
        XCTAssertEqual(publisher.pendingCount, 0)
        XCTAssertEqual(publisher.sent, burst)
    }

    func testFlushWaitsUntilTheBusHasTakenEverything() throws {
        let bus = try bus()
        defer { bus.close() }
        let publisher = try publisher(source: "test/flush")
        defer { publisher.socket.close() }
        try connect(publisher, to: bus)
        try publish(publisher, count: 20_000, topic: "data.flush")
        // Nobody reads: flush gives up at its deadline and says so.
        XCTAssertFalse(try publisher.flush(timeoutSeconds: 0.2))
        XCTAssertGreaterThan(publisher.pendingCount, 0)

        // A reader on its own thread (the socket is the thread's alone while it runs).
        let received = ReceivedCount()
        nonisolated(unsafe) let readerSocket = bus
        let reader = Thread {
            let deadline = Date().timeIntervalSince1970 + 30
            while received.value < 20_000 && Date().timeIntervalSince1970 < deadline {
                if (try? readerSocket.receiveMultipart(dontWait: true)) ?? nil != nil { received.increment() } else { usleep(100) }
            }
            received.finish()
        }
        reader.start()
        XCTAssertTrue(try publisher.flush(timeoutSeconds: 30))
        XCTAssertEqual(publisher.pendingCount, 0)
        received.waitUntilFinished()
        XCTAssertEqual(received.value, 20_000)
    }

    /// What the resend ring re-sends into a full queue waits, in order, instead of being counted lost.
    func testTheResendRingIsHeldBackNotDroppedWhenTheNewBusQueueIsFull() throws {
        let first = try bus()
        let publisher = try publisher(source: "test/resend")
        defer { publisher.socket.close() }
        try connect(publisher, to: first)
        // A burst the first bus reads in full; the ring keeps it (events are kept for resending).
        let burst = 2_000
        try publish(publisher, count: burst, topic: "region.event.app")
        var seen: [Int] = []
        try serve(first, publisher, into: &seen) { $0.count >= burst }
        XCTAssertEqual(seen, Array(1...burst))
        XCTAssertEqual(publisher.resendable, burst)

        // The old bus goes: the publisher sees the unsubscribe.
        first.close()
        let lossDeadline = Date().timeIntervalSince1970 + 10
        while publisher.connected && Date().timeIntervalSince1970 < lossDeadline {
            try publisher.pump()
            usleep(1_000)
        }
        XCTAssertFalse(publisher.connected, "the publisher never saw the bus go")

        // The new bus reads nothing until the publisher has re-sent into its small queue.
        let second = try bus()
        defer { second.close() }
        try connect(publisher, to: second)
        XCTAssertGreaterThan(publisher.pendingCount, 0, "the ring should have met a full queue")

        var again: [Int] = []
        try serve(second, publisher, into: &again) { $0.count >= burst }
        XCTAssertEqual(publisher.dropped, 0)
        XCTAssertEqual(publisher.pendingCount, 0)
        XCTAssertEqual(again.count, burst, "ring entries lost: \(burst - again.count)")
        XCTAssertEqual(again, Array(1...burst), "the ring came back out of order")
    }
}

private final class ReceivedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private let done = DispatchSemaphore(value: 0)
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
    func finish() { done.signal() }
    func waitUntilFinished() { done.wait() }
}

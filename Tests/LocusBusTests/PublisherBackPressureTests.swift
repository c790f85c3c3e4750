import CZeroMQ
import Foundation
import LocusBus
import LocusProtocol
import XCTest

/// A publisher whose queue towards the bus is full holds messages back instead of losing
/// them: an XPUB drops silently at its high-water mark unless told not to.
final class PublisherBackPressureTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "locus-backpressure-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The XSUB hands its subscription to a new connection only when its own thread enters
    /// libzmq, as the broker's poll loop does all the time.
    private func connect(_ publisher: BusPublisher, to bus: ZMQSocket) throws {
        let deadline = Date().timeIntervalSince1970 + 5
        while !publisher.connected && Date().timeIntervalSince1970 < deadline {
            _ = try bus.receiveMultipart(dontWait: true)
            try publisher.pump()
            usleep(1_000)
        }
        XCTAssertTrue(publisher.connected, "the publisher never saw the bus's subscription")
    }

    func testABusThatReadsLateStillGetsEveryMessageInOrder() throws {
        let context = ZMQContext()
        defer { context.shutdown() }
        // The bus's side, as the broker's frontend is: an XSUB that subscribes to everything
        // and here reads nothing until the publisher has sent the whole burst.
        let bus = try ZMQSocket(context: context, type: .xsub)
        defer { bus.close() }
        try bus.setOption(ZMQ_RCVHWM, 20)
        try bus.bind("ipc://\(directory)/pub")
        _ = try bus.send([1])
        let publisher = try BusPublisher(context: context, endpoint: "ipc://\(directory)/pub", source: "test/burst", highWaterMark: 20)
        defer { publisher.socket.close() }
        try connect(publisher, to: bus)

        let burst = 20_000
        for n in 1...burst {
            try publisher.publish(.other(type: "probe", fields: .object(["n": .number(Double(n))])), topic: "data.burst", t: Double(n))
        }
        XCTAssertGreaterThan(publisher.pendingCount, 0, "the burst should have filled the queue towards the bus")

        var sequence: [Int] = []
        let deadline = Date().timeIntervalSince1970 + 30
        while sequence.count < burst && Date().timeIntervalSince1970 < deadline {
            while let frames = try bus.receiveMultipart(dontWait: true) {
                guard frames.count == 2, let seq = try MessageCodec.decode(frames[1]).envelope.seq else {
                    return XCTFail("unexpected frames \(frames.map(\.count))")
                }
                sequence.append(seq)
            }
            try publisher.pump()
            if sequence.count < burst { usleep(200) }
        }
        XCTAssertEqual(sequence.count, burst, "messages lost: \(burst - sequence.count)")
        let firstWrong = zip(sequence, 1...burst).first { $0.0 != $0.1 }
        XCTAssertNil(firstWrong, "out of order or repeated: seq \(firstWrong?.0 ?? 0) where \(firstWrong?.1 ?? 0) belonged")
        XCTAssertEqual(publisher.dropped, 0)
        XCTAssertEqual(publisher.pendingCount, 0)
        XCTAssertEqual(publisher.sent, burst)
    }

    func testFlushWaitsUntilTheBusHasTakenEverything() throws {
        let context = ZMQContext()
        defer { context.shutdown() }
        let bus = try ZMQSocket(context: context, type: .xsub)
        defer { bus.close() }
        try bus.setOption(ZMQ_RCVHWM, 20)
        try bus.bind("ipc://\(directory)/pub")
        _ = try bus.send([1])
        let publisher = try BusPublisher(context: context, endpoint: "ipc://\(directory)/pub", source: "test/flush", highWaterMark: 20)
        defer { publisher.socket.close() }
        try connect(publisher, to: bus)
        for n in 1...20_000 {
            try publisher.publish(.other(type: "probe", fields: .object(["n": .number(Double(n))])), topic: "data.flush", t: Double(n))
        }
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

/// After the bus comes back, the resend ring meets the same full queue: what it refuses
/// waits, in order, instead of being counted lost.
final class ResendBackPressureTests: XCTestCase {
    private let context = ZMQContext()
    private var endpoint = ""
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "locus-resend-backpressure-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        endpoint = "ipc://\(directory)/pub"
    }

    override func tearDown() {
        context.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A bus's end as the broker's frontend is: an XSUB with a small queue, subscribed to everything.
    private func bus() throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, type: .xsub)
        try socket.setOption(ZMQ_RCVHWM, 20)
        try socket.bind(endpoint)
        _ = try socket.send([1])
        return socket
    }

    /// Reads what arrives and pumps the publisher, as the bus and a service loop would, until `done`.
    private func serve(_ socket: ZMQSocket, _ publisher: BusPublisher, into sequence: inout [Int],
                       until done: (_ sequence: [Int]) -> Bool) throws {
        let deadline = Date().timeIntervalSince1970 + 20
        while !done(sequence) && Date().timeIntervalSince1970 < deadline {
            while let frames = try socket.receiveMultipart(dontWait: true) {
                if frames.count == 2, let seq = try MessageCodec.decode(frames[1]).envelope.seq { sequence.append(seq) }
            }
            try publisher.pump()
            usleep(500)
        }
    }

    func testTheResendRingIsHeldBackNotDroppedWhenTheNewBusQueueIsFull() throws {
        let first = try bus()
        let publisher = try BusPublisher(context: context, endpoint: endpoint, source: "test/resend", highWaterMark: 20)
        defer { publisher.socket.close() }
        var seen: [Int] = []
        try serve(first, publisher, into: &seen) { _ in publisher.connected }
        XCTAssertTrue(publisher.connected)
        // A burst the first bus reads in full; the ring keeps it (events are kept for resending).
        let burst = 2_000
        for n in 1...burst {
            try publisher.publish(.other(type: "probe", fields: .object(["n": .number(Double(n))])), topic: "region.event.app", t: Double(n))
        }
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
        let reconnectDeadline = Date().timeIntervalSince1970 + 10
        while !publisher.connected && Date().timeIntervalSince1970 < reconnectDeadline {
            _ = try second.receiveMultipart(dontWait: true)  // lets the XSUB hand over its subscription
            try publisher.pump()
            usleep(1_000)
        }
        XCTAssertTrue(publisher.connected, "the publisher never saw the new bus")
        XCTAssertGreaterThan(publisher.pendingCount, 0, "the ring should have met a full queue")

        var again: [Int] = []
        try serve(second, publisher, into: &again) { $0.count >= burst }
        XCTAssertEqual(publisher.dropped, 0)
        XCTAssertEqual(publisher.pendingCount, 0)
        XCTAssertEqual(again.count, burst, "ring entries lost: \(burst - again.count)")
        XCTAssertEqual(again, Array(1...burst), "the ring came back out of order")
    }
}

import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// One broker run in its own context, so stopping it (the bus going away) leaves the
/// clients' sockets alone; a later run on the same directory is the restarted bus.
private final class BusRun: @unchecked Sendable {
    /// Released by `stop()`: terminating the context closes the listeners for good, as a dead process would.
    private var context: ZMQContext? = ZMQContext()
    let configuration: BrokerConfiguration
    private let done = DispatchSemaphore(value: 0)

    init(directory: String, state: String?, graceSeconds: Double = 0.5) {
        var configuration = BrokerConfiguration(pubEndpoint: "ipc://\(directory)/pub", subEndpoint: "ipc://\(directory)/sub")
        configuration.healthIntervalSeconds = 60
        configuration.stateDirectory = state
        configuration.restartGraceSeconds = graceSeconds
        self.configuration = configuration
        BrokerHarness.startBroker(configuration, context: context!, done: done)
    }

    func stop() {
        guard let context else { return }
        context.shutdown()
        done.wait()
        self.context = nil
    }
}

final class BusRestartTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "locus-bus-restart-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func publish(_ publisher: BusPublisher, _ n: Int) throws {
        try publisher.publish(.other(type: "probe", fields: .object(["n": .number(Double(n))])), topic: "data.x", t: Double(n))
    }

    /// The bus goes away in the middle of a stream and a new one starts on the same endpoints:
    /// every message reaches the subscriber exactly once (after de-duplication by id), in order.
    func testEveryMessageArrivesOnceAndInOrderAcrossABusRestart() throws {
        let state = directory + "/state"
        var bus = BusRun(directory: directory, state: state)
        let clients = ZMQContext()
        defer { clients.shutdown() }
        // The subscriber runs in its own loop like a service's, so its reconnection (and the
        // subscriptions libzmq sends again then) is handled while the bus restarts.
        let receiver = Receiver(context: clients, endpoint: bus.configuration.subEndpoint)
        let publisher = try BusPublisher(context: clients, endpoint: bus.configuration.pubEndpoint, source: "test/restart")
        defer { publisher.socket.close() }
        XCTAssertTrue(try publisher.waitUntilConnected(timeoutSeconds: 5))
        var n = 0
        while n < 1_000 {  // probes until the subscription is live
            n += 1
            try publish(publisher, n)
            if receiver.live.wait(timeout: .now() + 0.01) == .success { break }
        }
        let start = n + 1
        for _ in 0..<200 { n += 1; try publish(publisher, n) }
        bus.stop()
        // Published while the bus is gone: before the loss is noticed these vanish in libzmq
        // (the resend ring brings them back), after it they wait in the queue.
        for _ in 0..<300 { n += 1; try publish(publisher, n) }
        bus = BusRun(directory: directory, state: state)
        defer { bus.stop() }
        // Served as a service's loop serves it (a pump whenever the socket is readable), until the
        // publisher has seen the loss and the new bus.
        var poller = Poller()
        poller.add(publisher.socket)
        let deadline = Date().timeIntervalSince1970 + 5
        while !(publisher.disconnections == 1 && publisher.connected) && Date().timeIntervalSince1970 < deadline {
            if try poller.poll(timeoutMilliseconds: 20)[0] { try publisher.pump() }
        }
        XCTAssertTrue(publisher.connected, "the publisher never saw the new bus")
        for _ in 0..<200 { n += 1; try publish(publisher, n) }
        let received = receiver.finish(last: n)
        let fromStart = Array(received.drop { $0 < start })
        let missing = Set(start...n).subtracting(fromStart).sorted()
        XCTAssertEqual(fromStart, Array(start...n),
                       "lost \(missing.count) (\(missing.first ?? 0)...\(missing.last ?? 0)), resent \(publisher.resent)")
        XCTAssertEqual(publisher.disconnections, 1)
        XCTAssertGreaterThan(publisher.resent, 0, "what was sent just before the loss is sent again")
        XCTAssertEqual(publisher.pendingCount, 0)
    }

    /// Positions and health are superseded by the next message, so they are not kept for re-sending.
    func testPositionsAndHealthAreNotKeptForResending() throws {
        let bus = BusRun(directory: directory, state: nil)
        defer { bus.stop() }
        let clients = ZMQContext()
        defer { clients.shutdown() }
        let publisher = try BusPublisher(context: clients, endpoint: bus.configuration.pubEndpoint, source: "test/kinds")
        defer { publisher.socket.close() }
        XCTAssertTrue(try publisher.waitUntilConnected(timeoutSeconds: 5))
        let body = Body.other(type: "probe", fields: .object([:]))
        for topic in ["location.fused.a", "location.raw.a", "health.x", "region.event.o", "location.significant.a", "location.approx.a"] {
            try publisher.publish(body, topic: topic, t: 1)
        }
        XCTAssertEqual(publisher.sent, 6)
        XCTAssertEqual(publisher.resendable, 2, "only the event and the significant change are kept")
    }

    /// Events the old bus forwarded are replayed by the new one (`bus.replay`), from the file
    /// under `--state`; without a state directory the new bus has nothing to replay. (The
    /// publisher re-sends nothing, so only the file can bring them back.)
    func testTheReplayRingSurvivesARestartOnlyWithAStateDirectory() throws {
        for state in [directory + "/state", nil] {
            var bus = BusRun(directory: directory, state: state, graceSeconds: 0)
            let clients = ZMQContext()
            defer { clients.shutdown() }
            let publisher = try BusPublisher(context: clients, endpoint: bus.configuration.pubEndpoint, source: "test/events",
                                             resendCapacity: 0)
            XCTAssertTrue(try publisher.waitUntilConnected(timeoutSeconds: 5))
            // The events pass the bus before any replay is asked for: a watcher receives them live.
            let watcher = try liveSubscriber(clients: clients, bus: bus, prefixes: ["region.event."])
            let event = Body.other(type: "probe", fields: .object(["n": .number(1)]))
            var sentIDs: [String] = []
            for index in 0..<5 {
                sentIDs.append(try publisher.publish(event, topic: "region.event.app\(index)", t: 1).envelope.id)
            }
            XCTAssertEqual(try receiveIDs(watcher, prefix: "region.event.", count: 5), sentIDs)
            watcher.socket.close()
            XCTAssertEqual(try replay(clients: clients, bus: bus, requester: "before", publisher: publisher), sentIDs, "the old bus has them (state \(state ?? "none"))")
            bus.stop()
            bus = BusRun(directory: directory, state: state, graceSeconds: 0)
            defer {
                publisher.socket.close()
                bus.stop()
            }
            XCTAssertEqual(try replay(clients: clients, bus: bus, requester: "after"), state == nil ? [] : sentIDs,
                           "state \(state ?? "none")")
        }
    }

    /// A subscriber whose subscription has reached the bus: the bus's cached health arrived.
    private func liveSubscriber(clients: ZMQContext, bus: BusRun, prefixes: [String]) throws -> BusSubscriber {
        let subscriber = try BusSubscriber(context: clients, endpoint: bus.configuration.subEndpoint,
                                           prefixes: prefixes + [Topic.health("bus")])
        XCTAssertEqual(try receiveIDs(subscriber, prefix: Topic.health("bus"), count: 1).count, 1, "no cached health from the bus")
        return subscriber
    }

    /// The ids of the first `count` messages whose topic starts with `prefix` (10 s at most).
    private func receiveIDs(_ subscriber: BusSubscriber, prefix: String, count: Int) throws -> [String] {
        var poller = Poller()
        poller.add(subscriber.socket)
        var ids: [String] = []
        let deadline = Date().timeIntervalSince1970 + 10
        while ids.count < count && Date().timeIntervalSince1970 < deadline {
            guard try poller.poll(timeoutMilliseconds: 50)[0] else { continue }
            while ids.count < count, let received = try subscriber.receive(dontWait: true) {
                if case let .message(topic, message, _) = received, topic.hasPrefix(prefix) { ids.append(message.envelope.id) }
            }
        }
        return ids
    }

    /// Asks for every `region.event.` message and returns the ids replayed before the marker.
    /// `publisher` (when given) sends the request on the connection the events came by, so the
    /// bus reads it after them.
    private func replay(clients: ZMQContext, bus: BusRun, requester: String, publisher given: BusPublisher? = nil) throws -> [String] {
        let marker = try BusSubscriber(context: clients, endpoint: bus.configuration.subEndpoint,
                                       prefixes: ["health.bus", "bus.replayed.", "region.event."])
        let publisher = try given ?? BusPublisher(context: clients, endpoint: bus.configuration.pubEndpoint, source: "test/\(requester)")
        defer {
            marker.socket.close()
            if given == nil { publisher.socket.close() }
        }
        var poller = Poller()
        poller.add(marker.socket)
        var live = false
        var ids: [String] = []
        let request = BusReplayRequest(requester: requester, prefixes: ["region.event."])
        let deadline = Date().timeIntervalSince1970 + 10
        while Date().timeIntervalSince1970 < deadline {
            guard try poller.poll(timeoutMilliseconds: 50)[0] else { continue }
            while let received = try marker.receive(dontWait: true) {
                guard case let .message(topic, message, _) = received else { continue }
                if topic == Topic.health("bus") && !live {
                    // The bus's cached health arrives once our subscription reached it: ask now, once.
                    live = true
                    try publisher.publish(request.body, topic: BusReplayRequest.topic, t: 1)
                    XCTAssertTrue(try publisher.waitUntilConnected(timeoutSeconds: 5))
                }
                if topic == request.markerTopic { return ids }
                if topic.hasPrefix("region.event.") { ids.append(message.envelope.id) }
            }
        }
        XCTFail("no replay marker from the bus")
        return []
    }
}

/// A subscriber to `data.` on its own thread, collecting the `n` of each message it receives
/// (repeats already dropped by id) until it has seen the one `finish` names.
private final class Receiver: @unchecked Sendable {
    let live = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var numbers: [Int] = []
    private var last: Int?
    private let done = DispatchSemaphore(value: 0)

    init(context: ZMQContext, endpoint: String) {
        Thread { [self] in
            defer { done.signal() }
            guard let subscriber = try? BusSubscriber(context: context, endpoint: endpoint, prefixes: ["data."]) else { return }
            defer { subscriber.socket.close() }
            var poller = Poller()
            poller.add(subscriber.socket)
            let deadline = Date().timeIntervalSince1970 + 30
            var signalled = false
            while Date().timeIntervalSince1970 < deadline {
                guard let readable = try? poller.poll(timeoutMilliseconds: 20) else { return }
                if readable[0] {
                    while let received = try? subscriber.receive(dontWait: true) {
                        guard case let .message(_, message, _) = received, case .other(_, let fields) = message.body,
                              case .number(let value)? = fields.objectValue?["n"] else { continue }
                        lock.withLock { numbers.append(Int(value)) }
                        if !signalled {
                            signalled = true
                            live.signal()
                        }
                    }
                }
                if lock.withLock({ last != nil && numbers.last == last }) { return }
            }
        }.start()
    }

    /// Waits until `last` arrived (or the receiver's deadline passed) and returns everything received.
    func finish(last: Int) -> [Int] {
        lock.withLock { self.last = last }
        done.wait()
        return lock.withLock { numbers }
    }
}

import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusService
import LocusProtocol
import XCTest

/// A real broker on its own thread, on private ipc endpoints, for tests that need real sockets.
final class BrokerHarness: @unchecked Sendable {
    let context = ZMQContext()
    let directory: String
    let configuration: BrokerConfiguration
    private let done = DispatchSemaphore(value: 0)

    init(highWaterMark: Int32 = 100_000, healthInterval: Double = 0.2) {
        directory = NSTemporaryDirectory() + "locus-bus-test-\(UUID().uuidString.prefix(8))"
        var configuration = BrokerConfiguration(pubEndpoint: "ipc://\(directory)/pub", subEndpoint: "ipc://\(directory)/sub")
        configuration.highWaterMark = highWaterMark
        configuration.healthIntervalSeconds = healthInterval
        self.configuration = configuration
        BrokerHarness.startBroker(configuration, context: context, done: done)
    }

    /// Runs a broker on its own thread and returns once it is listening; `done` is signalled
    /// when it has stopped (after its context is shut down).
    static func startBroker(_ configuration: BrokerConfiguration, context: ZMQContext, done: DispatchSemaphore) {
        let ready = DispatchSemaphore(value: 0)
        Thread {
            let broker = Broker(configuration: configuration, log: ServiceLog(name: "test-bus", minimum: .error))
            do { try broker.run(context: context) { ready.signal() } } catch { ready.signal() }
            done.signal()
        }.start()
        ready.wait()
    }

    func stop() {
        context.shutdown()
        done.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func subscriber(_ prefixes: String...) throws -> BusSubscriber {
        try BusSubscriber(context: context, endpoint: configuration.subEndpoint, prefixes: prefixes)
    }

    func publisher(source: String = "test/pub") throws -> BusPublisher {
        let publisher = try BusPublisher(context: context, endpoint: configuration.pubEndpoint, source: source)
        XCTAssertTrue(try publisher.waitUntilConnected(timeoutSeconds: 5), "bus never subscribed to the publisher")
        return publisher
    }

    /// Receives until `match` accepts a message, or fails after `timeout` seconds.
    func waitFor(_ subscriber: BusSubscriber, timeout: Double = 5,
                 file: StaticString = #filePath, line: UInt = #line,
                 _ match: (String, Message) -> Bool) throws -> Message? {
        let deadline = Date().timeIntervalSince1970 + timeout
        var poller = Poller()
        poller.add(subscriber.socket)
        while Date().timeIntervalSince1970 < deadline {
            let remaining = deadline - Date().timeIntervalSince1970
            guard try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))[0] else { continue }
            while let received = try subscriber.receive(dontWait: true) {
                if case let .message(topic, message, _) = received, match(topic, message) { return message }
            }
        }
        XCTFail("expected message did not arrive within \(timeout) s", file: file, line: line)
        return nil
    }

    /// Waits until the subscription is live by publishing probes on `topic` until one arrives.
    func waitUntilLive(_ subscriber: BusSubscriber, publisher: BusPublisher, topic: String) throws {
        var poller = Poller()
        poller.add(subscriber.socket)
        for _ in 0..<500 {
            try publisher.publish(.other(type: "probe", fields: .object([:])), topic: topic, t: 1)
            if try poller.poll(timeoutMilliseconds: 10)[0] {
                while try subscriber.receive(dontWait: true) != nil {}
                return
            }
        }
        XCTFail("subscription never became live")
    }
}

func sampleLocation(device: String = "truck-7", lat: Double = 31.2304) -> Body {
    .location(Location(device: device, source: "gps", lat: lat, lon: 121.4737, hacc: 5))
}

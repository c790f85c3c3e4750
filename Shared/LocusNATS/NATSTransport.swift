import CNATS
import Foundation
public import LocusProtocol
public import LocusService

/// A service's bus on a NATS cluster (`BusTransport`): topics become subjects by
/// `SubjectMapping`, the v1 JSON body travels unchanged, and `StreamLayout` decides which
/// messages JetStream keeps. Durable messages are published with their `id` as
/// `Nats-Msg-Id` and confirmed in `commit` before the inputs that caused them are
/// acknowledged, so a kill anywhere loses nothing and a re-send is not a second event.
public final class NATSTransport: BusTransport {
    public let connection: NATSConnection
    private let receiver: NATSReceiver
    /// The newest message drained from each consumer, acknowledged at the next commit.
    private var toAcknowledge: [Int: OpaquePointer] = [:]
    private var sent = 0
    private var dropped = 0
    private var publishFailures = 0
    private var commitTimeouts = 0

    /// - Parameters:
    ///   - partition: with `--partition K/N`, the server's partition K of N of the device-scoped flows.
    public init(connection: NATSConnection, service: String, instance: String, subscriptions: [String],
                partition: Shard?, log: ServiceLog) throws(NATSError) {
        self.connection = connection
        receiver = try NATSReceiver(connection: connection, service: service, instance: instance,
                                    prefixes: subscriptions, partition: partition, log: log)
    }

    public var readyFD: Int32 { receiver.readyFD }

    public func drain(upTo limit: Int, _ body: (TransportInput) -> Void) {
        for item in receiver.queue.take(upTo: limit) {
            if let handle = item.ackHandle {
                if let older = toAcknowledge[item.consumer] { natsMsg_Destroy(older) }
                toAcknowledge[item.consumer] = handle
            }
            body(item.input)
        }
    }

    public func publish(_ message: Message, topic: String) {
        let subject = SubjectMapping.subject(forTopic: topic)
        let body = MessageCodec.encode(message)
        switch StreamLayout.route(forTopic: topic) {
        case .durable(let stream) where stream == StreamLayout.events:
            connection.publishDurableInOrder(subject: subject, body: body, id: message.envelope.id)
            sent += 1
        case .durable:
            do {
                try connection.publishDurable(subject: subject, body: body, id: message.envelope.id)
                sent += 1
            } catch {
                publishFailures += 1  // kept and sent again at the next commit
            }
        case .lastValue, .plain:
            if connection.publish(subject: subject, body: body) { sent += 1 } else { dropped += 1 }
        }
    }

    @discardableResult
    public func commit(timeoutSeconds: Double) -> Bool {
        guard connection.confirmPublishes(timeoutSeconds: timeoutSeconds) else {
            commitTimeouts += 1
            return false
        }
        if !toAcknowledge.isEmpty {
            receiver.acknowledge(toAcknowledge)
            toAcknowledge.removeAll(keepingCapacity: true)
        }
        return true
    }

    public func flush(timeoutSeconds: Double) -> Bool {
        connection.confirmPublishes(timeoutSeconds: timeoutSeconds) && connection.flush(timeoutSeconds: timeoutSeconds)
    }

    public var counters: [String: Int] {
        var values = connection.counters.merging(receiver.health) { $1 }
        values["sent"] = sent
        values["dropped"] = dropped
        values["publishFailures"] = publishFailures
        values["commitTimeouts"] = commitTimeouts
        values["natsReceived"] = receiver.queue.received
        return values
    }

    public var description: String { "NATS \(connection.endpoint)" }

    public func close() {
        receiver.close()
        for (_, message) in toAcknowledge { natsMsg_Destroy(message) }
        toAcknowledge.removeAll()
    }
}

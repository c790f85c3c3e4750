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
    private let delivery: FixDelivery
    /// With `--fix-delivery plain`: each device's last position, kept for late subscribers.
    private var lastPositions: LastPositionWriter

    /// - Parameters:
    ///   - partition: with `--partition K/N`, the server's partition K of N of the device-scoped flows.
    ///   - delivery: how positions travel (`--fix-delivery`, the same for the whole deployment).
    public init(connection: NATSConnection, service: String, instance: String, subscriptions: [String],
                partition: Shard?, delivery: FixDelivery = .durable, log: ServiceLog) throws(NATSError) {
        self.connection = connection
        self.delivery = delivery
        lastPositions = LastPositionWriter { subject, body in connection.publish(subject: subject, body: body) }
        receiver = try NATSReceiver(connection: connection, service: service, instance: instance,
                                    prefixes: subscriptions, partition: partition, delivery: delivery, log: log)
    }

    private static func now() -> Double { ProcessInfo.processInfo.systemUptime }

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
        switch StreamLayout.route(forTopic: topic, delivery: delivery) {
        case .durable(let stream):
            do {
                try connection.publishDurable(subject: subject, body: body, id: message.envelope.id, stream: stream.name)
                sent += 1
            } catch {
                publishFailures += 1  // a message that could not even be built
            }
        case .lastValue, .plain:
            if connection.publish(subject: subject, body: body) { sent += 1 } else { dropped += 1 }
        case .live:
            if connection.publish(subject: subject, body: body) { sent += 1 } else { dropped += 1 }
            lastPositions.note(subject: subject, body: body, now: Self.now())
        }
    }

    @discardableResult
    public func commit(timeoutSeconds: Double) -> Bool {
        lastPositions.writeDue(now: Self.now())
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
        lastPositions.writeDue(now: Self.now())
        return connection.confirmPublishes(timeoutSeconds: timeoutSeconds) && connection.flush(timeoutSeconds: timeoutSeconds)
    }

    public var counters: [String: Int] {
        var values = connection.counters.merging(receiver.health) { $1 }
        values["sent"] = sent
        values["dropped"] = dropped
        values["publishFailures"] = publishFailures
        values["commitTimeouts"] = commitTimeouts
        values["natsReceived"] = receiver.queue.received
        if delivery == .plain { values["lastPositionWrites"] = lastPositions.writes }
        return values
    }

    public var description: String { "NATS \(connection.endpoint)" + (delivery == .plain ? " (fixes plain)" : "") }

    public func close() {
        lastPositions.writeAll(now: Self.now())
        _ = connection.flush(timeoutSeconds: 2)
        receiver.close()
        for (_, message) in toAcknowledge { natsMsg_Destroy(message) }
        toAcknowledge.removeAll()
    }
}

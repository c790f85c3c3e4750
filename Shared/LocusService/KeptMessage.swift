public import LocusProtocol

/// A stamped message (id, `src`, `seq` set) that a service keeps with its own state until
/// the transport confirms it: a transactional outbox. On a transport whose servers
/// acknowledge what they store (NATS JetStream), the runtime hands the logic each batch's
/// stamped output before the logic's `flush` commits the batch, and tells it once the
/// servers hold that output. A service killed between its commit and that confirmation
/// finds the messages again at its next start and the runtime sends them first, with the
/// same ids, so receivers drop the copies that had arrived.
public struct KeptMessage: Sendable, Equatable {
    public var topic: String
    public var message: Message

    public init(topic: String, message: Message) {
        self.topic = topic
        self.message = message
    }
}

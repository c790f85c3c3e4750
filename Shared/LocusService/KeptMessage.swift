public import LocusProtocol

/// A message (id and `src` set) that a service keeps with its own state until the transport
/// confirms it: a transactional outbox. On a transport whose servers acknowledge what they
/// store (NATS JetStream), the runtime lets the logic keep output
/// (`ServiceLogic.keepOutputUntilConfirmed`): the logic names such a message itself
/// (`Outbound.id`), writes it in the same commit as the state that caused it, and forgets it
/// once the runtime says the servers hold it. A service killed between its commit and that
/// confirmation finds the messages again at its next start and the runtime sends them first,
/// with the same ids, so receivers drop the copies that had arrived.
public struct KeptMessage: Sendable, Equatable {
    public var topic: String
    public var message: Message

    public init(topic: String, message: Message) {
        self.topic = topic
        self.message = message
    }
}

public import LocusProtocol

/// A message bus seen from the runtime's loop, for a transport other than the built-in
/// ZeroMQ bus (NATS: `Shared/LocusNATS`). The runtime owns the loop: it polls `readyFD`,
/// drains what arrived, runs the service's logic on the batch, publishes what the logic
/// returned, then calls `commit` so the transport can tell the servers that the batch is
/// handled (a durable consumer moves on only then, so a service killed mid-batch gets the
/// batch again). Service logic never sees this protocol.
public protocol BusTransport: AnyObject {
    /// Readable while received input waits to be drained.
    var readyFD: Int32 { get }
    /// Hands up to `limit` waiting inputs to `body`, in arrival order.
    func drain(upTo limit: Int, _ body: (TransportInput) -> Void)
    /// Publishes a stamped message (id, `src`, `seq` already set). Never blocks for long:
    /// while the servers are away it queues, and counts what it had to drop.
    func publish(_ message: Message, topic: String)
    /// Everything drained so far has been handled and its output published: wait until the
    /// servers hold that output (within `timeoutSeconds`), then acknowledge the inputs.
    /// Returns false when the servers did not confirm in time (the inputs will come again).
    @discardableResult
    func commit(timeoutSeconds: Double) -> Bool
    /// Waits until what was published has reached the servers; false on timeout.
    func flush(timeoutSeconds: Double) -> Bool
    /// Counters for `health.<service>` (sent, dropped, disconnections, …).
    var counters: [String: Int] { get }
    /// Where it is connected, for the log.
    var description: String { get }
    /// Closes subscriptions and the connection.
    func close()
}

/// One input a transport received.
public enum TransportInput: Sendable {
    case message(topic: String, message: Message)
    /// A body that could not be decoded, or a subject that is not a Locus topic.
    case rejected(topic: String?, error: ProtocolError)
}

/// Keeps what one durable pull consumer hands to a service in stream order, with nothing
/// skipped, although the consumer acknowledges all messages up to the one acknowledged.
///
/// Every delivery has a consumer sequence one above the previous delivery's. A jump means
/// deliveries were lost on the way (a node died with them in its buffers); the consumer
/// counts them as delivered, so acknowledging a later message would acknowledge them too.
/// From the jump on, nothing is handed on or acknowledged: the receiver drops its
/// subscription (and whatever is still on its way to it), waits until the servers have put
/// every unacknowledged message back for delivery (`NATSConsumer.redeliveryPause`), and
/// subscribes again — the servers then deliver those messages, oldest first, before anything
/// new, and `resume` takes the first delivery as it comes. The same wait comes first at start
/// when an earlier run died holding deliveries it never acknowledged.
///
/// A message at or below the newest stream sequence handed on is a repeat (a re-delivery of
/// work already done) and is dropped.
public struct DeliveryOrder: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// The next message: hand it on.
        case next
        /// Already handed on before: drop it.
        case repeated
        /// Delivered after a lost delivery (or after this one): drop it; it comes again.
        case afterGap
    }

    /// The consumer sequence of the newest delivery seen since the last `resume`.
    public private(set) var lastDelivery: UInt64?
    /// The stream sequence of the newest message handed on.
    public private(set) var handedThrough: UInt64 = 0
    /// A delivery was lost: nothing passes until `resume`.
    public private(set) var stopped = false
    public private(set) var gaps = 0

    public init() {}

    public mutating func judge(delivery: UInt64, stream: UInt64) -> Verdict {
        if stopped { return .afterGap }
        defer { lastDelivery = delivery }
        if stream <= handedThrough { return .repeated }
        if let last = lastDelivery, delivery > last + 1 {
            gaps += 1
            stopped = true
            return .afterGap
        }
        handedThrough = stream
        return .next
    }

    /// The servers have put back what was lost: the next delivery is taken as it comes.
    public mutating func resume() {
        stopped = false
        lastDelivery = nil
    }
}

/// Keeps what one durable pull consumer hands to a service in stream order, with nothing
/// skipped, although the consumer acknowledges all messages up to the one acknowledged.
///
/// Every delivery has a consumer sequence one above the previous delivery's. A jump means
/// deliveries were lost on the way (a node died with them in its buffers); the consumer
/// counts them as delivered, so acknowledging a later message would acknowledge them too.
/// After a jump nothing is handed on and nothing acknowledged until the servers deliver a
/// message again (after the acknowledgement wait): the lost ones come first, oldest first,
/// followed by those dropped meanwhile — every dropped message comes back the same way.
/// A message at or below the newest stream sequence handed on is a repeat (a re-delivery
/// of work already done) and is dropped.
public struct DeliveryOrder: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// The next message: hand it on.
        case next
        /// Already handed on before: drop it.
        case repeated
        /// Delivered after a lost delivery: drop it; it comes again.
        case afterGap
    }

    /// The consumer sequence of the newest delivery seen.
    public private(set) var lastDelivery: UInt64?
    /// The stream sequence of the newest message handed on.
    public private(set) var handedThrough: UInt64 = 0
    /// Since a lost delivery: waiting for the servers to deliver again.
    public private(set) var waitingForRedelivery = false
    public private(set) var gaps = 0

    public init() {}

    public mutating func judge(delivery: UInt64, stream: UInt64, timesDelivered: UInt64) -> Verdict {
        defer { lastDelivery = delivery }
        if stream <= handedThrough { return .repeated }
        if waitingForRedelivery {
            // First deliveries now are ones that overtook the lost messages; a re-delivery
            // is where the servers begin again, oldest first.
            guard timesDelivered > 1 else { return .afterGap }
            waitingForRedelivery = false
        } else if let last = lastDelivery, delivery > last + 1 {
            gaps += 1
            waitingForRedelivery = true
            return .afterGap
        }
        handedThrough = stream
        return .next
    }
}

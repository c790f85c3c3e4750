/// What one delivery attempt came to.
public enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Try again later (the receiver is down, busy or timed out).
    case retry(String)
    /// Giving up on this notification (the receiver refused it); the next one follows.
    case failed(String)
    /// This sink does not carry this kind (e.g. MQTT transitions exist only for regions).
    case skipped
}

/// A place notifications go. `deliver` is called on the sink's own worker thread, one
/// notification at a time, in outbox order, possibly again after a crash — so a sink
/// should pass `record.id` on for receivers to drop repeats.
public protocol NotificationSink: AnyObject {
    /// Short name used in `notify.<name>` and in the outbox cursor.
    var name: String { get }
    func deliver(_ record: NotificationRecord) -> DeliveryOutcome
}

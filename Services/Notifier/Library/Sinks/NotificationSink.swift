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

/// A place notifications go. `deliver` is called on the sink's own worker thread (or, for a
/// sink that `deliversInline`, on the runtime thread while that worker is idle), one
/// notification at a time, in outbox order, possibly again after a crash — so a sink
/// should pass `record.id` on for receivers to drop repeats.
public protocol NotificationSink: AnyObject {
    /// Short name used in `notify.<name>` and in the outbox cursor.
    var name: String { get }
    func deliver(_ record: NotificationRecord) -> DeliveryOutcome
    /// Several notifications in outbox order, one outcome each (a burst delivered inline);
    /// by default one `deliver` after another.
    func deliver(_ records: [NotificationRecord]) -> [DeliveryOutcome]
    /// True for a sink whose delivery is a quick local write (a file, a terminal): while its
    /// worker has nothing queued, the runtime thread delivers a new notification itself and
    /// publishes its record at once, saving two thread hand-offs on the event path. Such a
    /// sink must be cheap to create and safe to use from two threads (never at once).
    var deliversInline: Bool { get }
}

extension NotificationSink {
    public var deliversInline: Bool { false }

    public func deliver(_ records: [NotificationRecord]) -> [DeliveryOutcome] {
        records.map { deliver($0) }
    }
}

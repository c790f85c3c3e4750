import LocusProtocol
/// How a notifier on the bus catches up after a restart (docs/reliability.md).
public struct ReplaySettings: Sendable, Equatable {
    /// Unique per process (it names the marker topic `bus.replayed.<requester>`), e.g. `notifier-4711`.
    public var requester: String
    /// Event topics asked for; they are also the topics held back until the replay ends.
    public var prefixes: [String] = [Topic.regionEventPrefix, Topic.visitPrefix, Topic.notifyRequest]
    /// Asked-for events start this long before the last event received, so events that were
    /// queued towards the notifier when it died (received by the bus earlier than the notifier's
    /// clock says) are included; the outbox drops the overlap by id.
    public var marginSeconds: Double = 10
    /// How long to wait for the `bus.replayed` marker before asking again.
    public var attemptTimeoutSeconds: Double = 1
    /// Requests sent before giving up and releasing the held events (logged as an error).
    public var attempts: Int = 3

    public init(requester: String) {
        self.requester = requester
    }
}

public import LocusProtocol

/// A message a service wants published: the runtime adds id, `src` and `seq`.
public struct Outbound: Sendable, Equatable {
    public var topic: String
    public var body: Body
    /// Time of the fact (docs/protocol.md `t`); for locations, the fix time.
    public var t: Double

    public init(topic: String, body: Body, t: Double) {
        self.topic = topic
        self.body = body
        self.t = t
    }
}

/// The seam between a service's logic and its I/O: messages in, messages out, no
/// sockets, so the same logic runs on the bus, in a `--stdio` pipeline and in unit tests.
///
/// `now` is wall-clock time on the bus and the messages' own `t` in `--stdio` mode, so
/// replays are deterministic. Rejected input is reported by returning an `.error` body
/// on `Topic.error(service)`; the runtime counts it.
public protocol ServiceLogic {
    /// Topic prefixes this service receives.
    var subscriptions: [String] { get }
    /// Bumped whenever `subscriptions` changes after start; on the bus the runtime then
    /// follows it after the batch: new prefixes are subscribed, dropped ones unsubscribed,
    /// so the bus stops sending what the service no longer wants (it never decodes it).
    var subscriptionsVersion: Int { get }
    mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound]
    /// Called at least every tick interval on the bus, and after every input in `--stdio` mode.
    mutating func tick(now: Double) -> [Outbound]
    /// Called once at shutdown or at the end of `--stdio` input: flush pending work.
    mutating func finish(now: Double) -> [Outbound]
    /// Called after each batch of inputs the runtime drained at once (and after ticks and
    /// `finish`). The runtime holds every message the batch produced until this returns,
    /// then publishes them followed by what it returns: a service can do per-batch work
    /// here — one database transaction for thousands of inputs — and still guarantee that
    /// nothing it reports leaves before that work is done.
    mutating func flush(now: Double) -> [Outbound]
    /// True for a service whose logic alone can keep a core busy under load (the geofence
    /// with a fleet): the runtime then receives and decodes bus messages on a second thread
    /// (`BusReader`), so decoding the next batch overlaps handling this one. Costs a thread
    /// hand-off per batch; false (the default) keeps everything on one thread.
    var receivesOnReaderThread: Bool { get }
    /// Back-pressure: false while the logic cannot take input that needs storage (its state
    /// cannot be written). The runtime then stops reading input and leaves it queued where
    /// it is — in the subscriber socket and the bus behind it, or unread on stdin — keeps
    /// ticking and publishing, and calls `retryHeld(now:)` until this is true again.
    var acceptsInput: Bool { get }
    /// Called about every `ServiceRuntime.retryIntervalSeconds` while `acceptsInput` is
    /// false, with the wall clock (in `--stdio` mode too, where no input moves time): try the
    /// held work again; what it returns is published.
    mutating func retryHeld(now: Double) -> [Outbound]
    /// Service-specific counters merged into `health.<service>`.
    var healthCounters: [String: Int] { get }
    var healthState: HealthState { get }
    var healthDetail: [String: String]? { get }
}

extension ServiceLogic {
    public var subscriptionsVersion: Int { 0 }
    public mutating func tick(now: Double) -> [Outbound] { [] }
    public mutating func finish(now: Double) -> [Outbound] { [] }
    public mutating func flush(now: Double) -> [Outbound] { [] }
    public var receivesOnReaderThread: Bool { false }
    public var acceptsInput: Bool { true }
    public mutating func retryHeld(now: Double) -> [Outbound] { [] }
    public var healthCounters: [String: Int] { [:] }
    public var healthState: HealthState { .ok }
    public var healthDetail: [String: String]? { nil }
}

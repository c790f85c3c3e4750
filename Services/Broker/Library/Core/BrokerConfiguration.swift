/// What a broker binds and how it bounds its queues.
public struct BrokerConfiguration: Sendable {
    /// Publishers connect here (XSUB).
    public var pubEndpoint: String
    /// Subscribers connect here (XPUB).
    public var subEndpoint: String
    /// Per-peer queue bound in messages; beyond it a slow subscriber loses messages (counted as `dropped`).
    public var highWaterMark: Int32 = 100_000
    public var healthIntervalSeconds: Double = 2
    public var cachePrefixes: [String] = LastValueCache.defaultPrefixes
    public var cacheCapacity: Int = 1_000_000
    /// Event topics kept for `bus.replay` (ReplayRing); empty turns replay off.
    public var replayPrefixes: [String] = ReplayRing.defaultPrefixes
    /// Most messages the replay ring holds.
    public var replayCapacity: Int = ReplayRing.defaultCapacity
    /// Oldest message (seconds since the bus received it) a replay re-sends.
    public var replayMaxAgeSeconds: Double = ReplayRing.defaultMaxAgeSeconds
    /// Where the replay ring is mirrored (`replay-ring.log`) so it survives a restart; nil keeps it in memory only.
    public var stateDirectory: String?
    /// After a restart (a saved ring was found), how long the bus waits before it subscribes
    /// to the publishers: subscribers reconnect meanwhile, so the messages publishers send
    /// again on reconnection reach them instead of an empty bus.
    public var restartGraceSeconds: Double = 0.5
    /// The `src` of the broker's own messages.
    public var source: String = "bus/main"
    /// More endpoints bound beside the main ones, e.g. an ipc pair for local services next to tcp with CURVE.
    public var extraPubEndpoints: [String] = []
    public var extraSubEndpoints: [String] = []
    /// Authentication, per-client access and the authorization authority (always on; without
    /// an allow-list every connection is the trusted local identity).
    public var authorization = BrokerAuthorization()

    public var pubEndpoints: [String] { [pubEndpoint] + extraPubEndpoints }
    public var subEndpoints: [String] { [subEndpoint] + extraSubEndpoints }

    /// Every field at its default (the endpoints empty): what `--help` prints as defaults.
    public static let defaults = BrokerConfiguration(pubEndpoint: "", subEndpoint: "")

    public init(pubEndpoint: String, subEndpoint: String) {
        self.pubEndpoint = pubEndpoint
        self.subEndpoint = subEndpoint
    }
}

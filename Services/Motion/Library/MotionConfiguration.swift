public import LocusProtocol
import LocusService

/// Every threshold of the motion degrader, with the defaults docs/motion.md documents.
/// A value type so tests and the executable build one the same way.
public struct MotionConfiguration: Sendable, Equatable {
    // MARK: Strategy

    /// The strategy for each activity (published on `control.<device>`).
    public var strategies: [MotionActivity: Strategy] = Strategy.defaultsByActivity
    /// Seconds of continuous `stationary` before updates pause (Core Location's
    /// `pausesLocationUpdatesAutomatically`).
    public var pauseAfterSeconds: Double = 120
    /// Activities reported with a lower confidence do not change the strategy.
    public var minimumConfidence: ConfidenceRank = .medium
    /// Low power: distance filter at least this many metres.
    public var lowPowerDistanceFilterMeters: Double = 20
    /// Low power: desired accuracy no finer than this many metres.
    public var lowPowerAccuracyMeters: Double = 100
    /// Low power set by configuration (a `control` message or the battery can also set it).
    public var lowPower = false
    /// Dead-reckoning limits per activity.
    public var profiles: [MotionActivity: ActivityProfile] = ActivityProfile.defaultsByActivity

    // MARK: Degradation

    /// Seconds past the expected fix interval before fixes count as lost.
    public var outageGraceSeconds: Double = 3
    /// Dead reckoning needs an established cadence: at least this many good fixes in a row…
    public var cadenceFixes = 5
    /// …each at most this many seconds (of fix time) after the one before.
    public var cadenceMaximumIntervalSeconds: Double = 60
    /// …and a device moving at its last good fix: a moving activity, or a speed of at least
    /// this many m/s (and twice its `speedAcc`).
    public var movingSpeedMetersPerSecond: Double = 0.5
    /// A fused fix with a larger `hacc` (metres) is not a good fix.
    public var maximumGoodHaccMeters: Double = 50
    /// Seconds between dead-reckoned fixes (1 Hz).
    public var deadReckoningIntervalSeconds: Double = 1
    /// Dead reckoning gives way to the cached location after this long…
    public var deadReckoningMaximumSeconds: Double = 300
    /// …or once its radius reaches this many metres.
    public var deadReckoningMaximumRadiusMeters: Double = 1000
    /// While degraded, the published desired accuracy is relaxed to this (metres), so that
    /// providers and fusion let the degraded estimate through instead of holding it back.
    public var degradedAccuracyMeters: Double = 2000
    /// Seconds between cached-location fixes.
    public var cacheIntervalSeconds: Double = 10
    /// The cached location is used while younger than this (seconds), then nothing is published.
    public var cacheValiditySeconds: Double = 1800

    // MARK: Input

    /// When non-empty, only these devices are known; input about others is rejected.
    public var devices: Set<String> = []
    /// Most devices tracked at once (`DeviceCap`).
    public var maximumDevices = DeviceCap.defaultMaximum

    public init() {}
}

/// Confidence as an ordered rank, so a minimum can be configured.
public enum ConfidenceRank: Int, Sendable, Comparable {
    case low = 0, medium = 1, high = 2

    public init(_ confidence: MotionConfidence) {
        switch confidence {
        case .low: self = .low
        case .medium: self = .medium
        case .high: self = .high
        }
    }

    /// A confidence word as messages spell it (`low`, `medium`, `high`); nil for any other.
    public init?(word: String) {
        guard let confidence = MotionConfidence(rawValue: word) else { return nil }
        self.init(confidence)
    }

    /// The word for this rank, as `--min-confidence` takes it.
    public var word: String {
        switch self {
        case .low: MotionConfidence.low.rawValue
        case .medium: MotionConfidence.medium.rawValue
        case .high: MotionConfidence.high.rawValue
        }
    }

    public static func < (a: ConfidenceRank, b: ConfidenceRank) -> Bool { a.rawValue < b.rawValue }
}


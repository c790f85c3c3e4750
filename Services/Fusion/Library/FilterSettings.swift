public import LocusProtocol

/// Tuning of the per-device filter. Defaults were chosen on the KITTI evaluation
/// (`locus bench fusion`) and are documented in docs/fusion.md.
public struct FilterSettings: Sendable, Equatable {
    /// White-acceleration spectral density (m²/s³) per motion activity: how fast the
    /// velocity may change. A parked car needs little, a car in traffic much more.
    public var processNoise: [MotionActivity: Double]
    /// Fraction of a fix's error variance assumed correlated in time (multipath, atmosphere):
    /// it does not average out, so it is kept in the published radius instead of being filtered.
    public var correlatedFraction: Double
    /// Time constant (s) of the running mean of correlated variance.
    public var correlatedTimeConstantSeconds: Double
    /// Fixes older than the filter by up to this many seconds are fused with grown accuracy; older ones are rejected.
    public var outOfOrderWindowSeconds: Double
    /// Speed (m/s) assumed at least when growing a late or cached fix's radius with its age.
    public var stalenessSpeedMetersPerSecond: Double
    /// The frame is re-centred once the estimate is this far from its origin.
    public var recenterDistanceMeters: Double
    public var gate: OutlierGate
    /// Weight of each fix in the running mean of normalised innovations (manoeuvre detection).
    public var innovationSmoothing = 0.3
    /// Largest factor by which a manoeuvre may raise the process noise.
    public var maximumManeuverScale = 5.0
    /// Factor applied to a fix's speed accuracy before its velocity is fused. A receiver's
    /// velocity comes out of its own tracking filter, so successive values share errors
    /// (and urban multipath biases Doppler); believing each one at its word would make the
    /// track, and the published radius, overconfident. 0 turns velocity fusion off.
    public var velocityAccuracyScale = 8.0

    public init(
        processNoise: [MotionActivity: Double] = FilterSettings.standardProcessNoise,
        correlatedFraction: Double = 0.35, correlatedTimeConstantSeconds: Double = 30,
        outOfOrderWindowSeconds: Double = 10, stalenessSpeedMetersPerSecond: Double = 2,
        recenterDistanceMeters: Double = 5_000, gate: OutlierGate = OutlierGate()
    ) {
        self.processNoise = processNoise
        self.correlatedFraction = correlatedFraction
        self.correlatedTimeConstantSeconds = correlatedTimeConstantSeconds
        self.outOfOrderWindowSeconds = outOfOrderWindowSeconds
        self.stalenessSpeedMetersPerSecond = stalenessSpeedMetersPerSecond
        self.recenterDistanceMeters = recenterDistanceMeters
        self.gate = gate
    }

    /// The spectral density for `activity`: its own, else unknown's, else 1.
    public func processNoise(for activity: MotionActivity) -> Double {
        processNoise[activity] ?? processNoise[.unknown] ?? 1
    }

    public static let standardProcessNoise: [MotionActivity: Double] = [
        .stationary: 0.01, .walking: 0.3, .running: 1, .cycling: 1, .automotive: 3, .unknown: 3,
    ]
}

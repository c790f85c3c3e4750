/// Everything that shapes a simulated run. Same configuration and seed → same fixes.
public struct SimConfiguration: Sendable {
    /// A window without GNSS fixes (tunnel, elevator), in seconds from the start.
    public struct Outage: Sendable, Equatable {
        public var startSeconds: Double
        public var durationSeconds: Double
        public init(startSeconds: Double, durationSeconds: Double) {
            self.startSeconds = startSeconds
            self.durationSeconds = durationSeconds
        }
        func contains(_ offset: Double) -> Bool { offset >= startSeconds && offset < startSeconds + durationSeconds }
    }

    /// A secondary source (Wi-Fi, cell): its own rate and accuracy, white noise only.
    public struct Secondary: Sendable, Equatable {
        public var hz: Double
        public var haccMeters: Double
        public init(hz: Double, haccMeters: Double) {
            self.hz = hz
            self.haccMeters = haccMeters
        }
    }

    public var route: RoutePath
    public var seed: UInt64 = 1
    /// Unix time of the first fix.
    public var startTime: Double
    /// GNSS fixes per second.
    public var hz: Double = 1
    /// Claimed 68% accuracy of GNSS fixes once converged; white per-axis sigma = hacc / 1.5096.
    public var haccMeters: Double = 5
    /// Per-axis stationary sigma of the correlated (Ornstein–Uhlenbeck) bias; 0 = none.
    public var biasSigmaMeters: Double = 0
    public var biasTauSeconds: Double = 60
    /// Probability that a GNSS fix is an outlier.
    public var outlierRate: Double = 0
    /// Median displacement of an outlier (the displacement is this times 0.5–1.5).
    public var outlierMeters: Double = 200
    public var outages: [Outage] = []
    /// Seconds over which accuracy converges from `coldHaccMeters` to `haccMeters`; 0 = warm start.
    public var coldStartSeconds: Double = 0
    public var coldHaccMeters: Double = 300
    public var wifi: Secondary?
    public var cell: Secondary?
    /// Simulated seconds to run; nil = the route's duration (or forever with `loop`).
    public var durationSeconds: Double?
    public var loop = false
    public var gnssSourceName = "gps"

    public init(route: RoutePath, startTime: Double) {
        self.route = route
        self.startTime = startTime
    }
}

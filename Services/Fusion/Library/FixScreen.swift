public import LocusGeo

/// Per-device checks a fix must pass before it reaches the filter: not a flood, not from
/// the far past or future, and not an impossible jump. What it rejects is reported on
/// `error.fusion`; outliers that are merely unlikely are the gate's business, not this one's.
public struct FixScreen: Sendable {
    public enum Rejection: Sendable, Equatable {
        case flood
        case timeBackwards(seconds: Double)
        case impossibleJump(speedMetersPerSecond: Double)

        public var code: String {
            switch self {
            case .flood: return "flood"
            case .timeBackwards: return "timeBackwards"
            case .impossibleJump: return "impossibleJump"
            }
        }
    }

    /// Sustained fixes per second (of fix time) one device may send; bursts up to `floodBurst`.
    public var floodRatePerSecond: Double
    public var floodBurst: Double
    /// Speed no device reaches; the implied speed between fixes is measured after both radii are allowed for.
    public var maximumSpeedMetersPerSecond: Double
    /// Fixes older than the newest by more than this are rejected as time going backwards.
    public var backwardsToleranceSeconds: Double

    private var tokens: Double
    private var tokenTime = -Double.infinity
    private var newest = -Double.infinity
    /// The last plausible-looking fix: later fixes are compared with it, so a device that really
    /// moved far (a restart elsewhere) is accepted from its second fix on.
    private var previous: (coordinate: Coordinate, hacc: Double, t: Double)?

    public init(floodRatePerSecond: Double = 20, floodBurst: Double = 100, maximumSpeedMetersPerSecond: Double = 343,
                backwardsToleranceSeconds: Double = 10) {
        self.floodRatePerSecond = floodRatePerSecond
        self.floodBurst = floodBurst
        self.maximumSpeedMetersPerSecond = maximumSpeedMetersPerSecond
        self.backwardsToleranceSeconds = backwardsToleranceSeconds
        self.tokens = floodBurst
    }

    public mutating func check(_ coordinate: Coordinate, hacc: Double, t: Double) -> Rejection? {
        if tokenTime.isFinite, t > tokenTime {
            tokens = min(floodBurst, tokens + (t - tokenTime) * floodRatePerSecond)
        }
        tokenTime = max(tokenTime, t)
        guard tokens >= 1 else { return .flood }
        tokens -= 1

        if newest - t > backwardsToleranceSeconds { return .timeBackwards(seconds: newest - t) }
        defer { previous = (coordinate, hacc, t) }
        if let previous {
            let distance = FastDistance.meters(previous.coordinate, coordinate)
            let slack = 3 * (previous.hacc + hacc)
            let elapsed = abs(t - previous.t)
            if distance > slack {
                let speed = (distance - slack) / max(elapsed, 0.001)
                if speed > maximumSpeedMetersPerSecond { return .impossibleJump(speedMetersPerSecond: speed) }
            }
        }
        newest = max(newest, t)
        return nil
    }
}

public import LocusGeo

/// Per-device checks a fix must pass before it reaches the filter or the history: not a flood
/// and not an impossible jump. What it rejects is reported on `error.fusion`; outliers that are
/// merely unlikely are the gate's business, and where a fix stands in time `FixTimeline`'s.
///
/// The checks run per stream — the device's current fixes, its late ones (history uploaded
/// after newer fixes) and the ones the stack invented (dead-reckoned, cached) — because each
/// stream has its own time line: a burst of buffered fixes spans minutes of fix time and is
/// no flood, and a late fix is compared with the late fix before it, not with the newest.
public struct FixScreen: Sendable {
    public enum Rejection: Sendable, Equatable {
        case flood
        case impossibleJump(speedMetersPerSecond: Double)

        public var code: String {
            switch self {
            case .flood: return "flood"
            case .impossibleJump: return "impossibleJump"
            }
        }
    }

    /// The time lines a device's fixes come on.
    public enum Stream: Int, Sendable, CaseIterable {
        case current, late, invented
    }

    /// Sustained fixes per second (of fix time) one device may send; bursts up to `floodBurst`.
    public var floodRatePerSecond: Double
    public var floodBurst: Double
    /// Speed no device reaches; the implied speed between fixes is measured after both radii are allowed for.
    public var maximumSpeedMetersPerSecond: Double

    private var streams: [StreamState]

    /// One stream's token bucket and last plausible-looking fix: later fixes are compared with
    /// it, so a device that really moved far (a restart elsewhere) is accepted from its second fix on.
    private struct StreamState: Sendable {
        var tokens: Double
        var tokenTime = -Double.infinity
        var previous: (coordinate: Coordinate, hacc: Double, t: Double)?
    }

    public init(floodRatePerSecond: Double = 20, floodBurst: Double = 100, maximumSpeedMetersPerSecond: Double = 343) {
        self.floodRatePerSecond = floodRatePerSecond
        self.floodBurst = floodBurst
        self.maximumSpeedMetersPerSecond = maximumSpeedMetersPerSecond
        self.streams = Array(repeating: StreamState(tokens: floodBurst), count: Stream.allCases.count)
    }

    public mutating func check(_ coordinate: Coordinate, hacc: Double, t: Double, stream: Stream = .current) -> Rejection? {
        var state = streams[stream.rawValue]
        defer { streams[stream.rawValue] = state }
        if state.tokenTime.isFinite, t > state.tokenTime {
            state.tokens = min(floodBurst, state.tokens + (t - state.tokenTime) * floodRatePerSecond)
        }
        state.tokenTime = max(state.tokenTime, t)
        guard state.tokens >= 1 else { return .flood }
        state.tokens -= 1

        defer { state.previous = (coordinate, hacc, t) }
        if let previous = state.previous {
            let distance = FastDistance.meters(previous.coordinate, coordinate)
            let slack = 3 * (previous.hacc + hacc)
            let elapsed = abs(t - previous.t)
            if distance > slack {
                let speed = (distance - slack) / max(elapsed, 0.001)
                if speed > maximumSpeedMetersPerSecond { return .impossibleJump(speedMetersPerSecond: speed) }
            }
        }
        return nil
    }
}

public import LocusService

/// Where one device's fixes stand in time, and what fusion decides from it.
///
/// - A real fix at or after the newest real fix is **current**: it goes to the filter.
/// - A real fix older than the newest real fix is **late**: data, not an error. It is history
///   (`location.late.<device>`, visits, significant change); within the filter's out-of-order
///   window it is also fused with its age counted against it, but it never rewinds the filter.
///   Only one older than `lateLimitSeconds` is refused, with its lag in the message.
/// - A fix the stack invented (`dr`, `cache`) is never newer than a real one: one measured at or
///   before the newest real fix is dropped, and the filter is kept as it was before the first
///   invented fix since the newest real one, so that the next real fix replaces every invented
///   fix it follows (`beforeInvented`), whatever their time stamps say.
public struct FixTimeline: Sendable {
    public enum Place: Sendable, Equatable {
        case current
        /// Older than the newest real fix by `lagSeconds`.
        case late(lagSeconds: Double)
        /// Late beyond the limit.
        case tooLate(lagSeconds: Double)
        /// Invented, for a time a real fix already covers.
        case inventedBehindReal
    }

    /// Measured time of the newest real fix fused.
    public private(set) var newestReal = -Double.infinity
    /// The filter as it was before the first invented fix after the newest real one.
    public var beforeInvented: DeviceFilter?
    /// Arrival offset of the device's fixes (real, current, with a plausible time).
    public var clock = DeviceClock()
    private var newestClockSample = -Double.infinity
    /// Whether the newest fused estimate came from a fix re-timed by its arrival.
    public var retimed = false
    /// Arrival time of the last clock-fault report about this device.
    public var lastClockFaultReport = -Double.infinity

    public init() {}

    /// Where a fix measured at `t` stands.
    public func place(measuredAt t: Double, invented: Bool, lateLimitSeconds: Double) -> Place {
        if invented { return t <= newestReal ? .inventedBehindReal : .current }
        guard t < newestReal else { return .current }
        let lag = newestReal - t
        return lag > lateLimitSeconds ? .tooLate(lagSeconds: lag) : .late(lagSeconds: lag)
    }

    /// A real fix measured at `t` was fused into the current estimate.
    public mutating func fusedReal(at t: Double, retimed: Bool) {
        if t >= newestReal { self.retimed = retimed }
        newestReal = max(newestReal, t)
    }

    /// Takes a real fix's time and arrival into the clock when it is the newest seen.
    public mutating func observeClock(fixTime t: Double, arrival: Double) {
        guard t > newestClockSample else { return }
        newestClockSample = t
        clock.observe(fixTime: t, arrival: arrival)
    }
}

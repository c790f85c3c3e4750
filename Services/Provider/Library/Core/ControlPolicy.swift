public import LocusProtocol
import LocusGeo

/// Applies a device's `control` settings to the fixes a source produces, before they are
/// published. Pure and single-threaded: the logic owns one.
///
/// - `distanceFilter` (m): like Core Location's `distanceFilter`, a fix is published only
///   when it lies at least this far from the last *published* fix (the first always goes).
/// - `desiredAccuracy` (m): a fix whose `hacc` is worse is held back, except that a
///   device is never left silent: when nothing was published for `maximumSilenceSeconds`,
///   the next fix goes out whatever its accuracy (Core Location also delivers coarse fixes
///   rather than none).
/// - `paused`: nothing is published until unpaused.
/// - `powerMode` `low`: at most one fix every `lowPowerIntervalSeconds`.
public struct ControlPolicy: Sendable {
    /// Why a fix was or was not published.
    public enum Decision: String, Sendable, Equatable {
        case publish, paused, distanceFilter, desiredAccuracy, lowPower
    }

    public var distanceFilterMeters: Double?
    public var desiredAccuracyMeters: Double?
    public var paused = false
    public var powerMode: PowerMode = .normal
    public var maximumSilenceSeconds = 10.0
    public var lowPowerIntervalSeconds = 10.0
    /// The last published fix: position and time.
    public private(set) var lastPublished: (lat: Double, lon: Double, t: Double)?

    public init() {}

    /// Takes the fields a control message sets; absent fields leave a setting unchanged.
    /// A distance filter or desired accuracy of 0 switches that setting off.
    public mutating func apply(_ control: Control) {
        if let value = control.distanceFilter { distanceFilterMeters = value > 0 ? value : nil }
        if let value = control.desiredAccuracy { desiredAccuracyMeters = value > 0 ? value : nil }
        if let value = control.paused { paused = value }
        if let value = control.powerMode { powerMode = value }
    }

    /// Decides for one fix at time `t` and remembers it when it is published.
    public mutating func admit(_ location: Location, t: Double) -> Decision {
        if paused { return .paused }
        if let last = lastPublished {
            let silence = t - last.t
            if powerMode == .low, silence < lowPowerIntervalSeconds { return .lowPower }
            if let filter = distanceFilterMeters {
                let moved = Geodesic.distance(Coordinate(lat: last.lat, lon: last.lon),
                                              Coordinate(lat: location.lat, lon: location.lon))
                if moved < filter { return .distanceFilter }
            }
            if let wanted = desiredAccuracyMeters, location.hacc > wanted, silence < maximumSilenceSeconds {
                return .desiredAccuracy
            }
        } else if let wanted = desiredAccuracyMeters, location.hacc > wanted {
            // Nothing published yet: hold coarse fixes back only until the silence limit
            // counted from the first one seen.
            let since = firstHeldBack ?? t
            firstHeldBack = since
            if t - since < maximumSilenceSeconds { return .desiredAccuracy }
        }
        lastPublished = (location.lat, location.lon, t)
        firstHeldBack = nil
        return .publish
    }

    private var firstHeldBack: Double?

    /// The applied settings as one line for health: `distanceFilter=10 desiredAccuracy=none paused=false powerMode=normal`.
    public var summary: String {
        func number(_ value: Double?) -> String {
            guard let value else { return "none" }
            return value == value.rounded() ? String(Int(value)) : String(value)
        }
        return "distanceFilter=\(number(distanceFilterMeters)) desiredAccuracy=\(number(desiredAccuracyMeters))"
            + " paused=\(paused) powerMode=\(powerMode.rawValue)"
    }
}

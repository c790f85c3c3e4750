public import LocusGeo

/// Core Location's significant-change service: a location is significant when the device is
/// at least `minimumDistanceMeters` (500) from the last significant one, and at most one is
/// delivered per `minimumIntervalSeconds` (5 minutes). The first fix is significant.
public struct SignificantChange: Sendable, Equatable {
    public var minimumDistanceMeters: Double
    public var minimumIntervalSeconds: Double
    public private(set) var last: Coordinate?
    public private(set) var lastTime: Double?

    public init(minimumDistanceMeters: Double = 500, minimumIntervalSeconds: Double = 300) {
        self.minimumDistanceMeters = minimumDistanceMeters
        self.minimumIntervalSeconds = minimumIntervalSeconds
    }

    /// Whether the fix at `coordinate`, time `t`, is significant; remembers it when it is.
    public mutating func observe(_ coordinate: Coordinate, t: Double) -> Bool {
        if let last, let lastTime {
            guard t - lastTime >= minimumIntervalSeconds,
                  FastDistance.meters(last, coordinate) >= minimumDistanceMeters else { return false }
        }
        last = coordinate
        lastTime = t
        return true
    }
}

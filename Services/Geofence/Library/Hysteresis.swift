/// What one fix says about one region, given its uncertainty.
public enum FixVerdict: Sendable, Equatable {
    /// Inside by more than the fix's confidence margin.
    case inside
    /// Outside by more than the margin.
    case outside
    /// Within the margin of the boundary: the fix cannot tell, so the state holds.
    case uncertain
}

/// Decides inside/outside with the fix's accuracy circle instead of its centre, so a
/// device standing on a boundary does not flicker: it is inside only when the whole
/// `factor × hacc` disc is inside, outside only when the disc is wholly outside.
public struct Hysteresis: Sendable, Equatable {
    /// Multiplies `hacc` (a 68 % radius) to get the margin.
    public var factor: Double

    public init(factor: Double) {
        self.factor = factor
    }

    /// Margin in metres a fix of accuracy `hacc` must clear on either side of a boundary.
    public func marginMeters(hacc: Double) -> Double { factor * hacc }

    /// The verdict for a fix `signedDistanceMeters` from the boundary (negative inside).
    public func verdict(signedDistanceMeters distance: Double, hacc: Double) -> FixVerdict {
        let margin = marginMeters(hacc: hacc)
        if distance <= -margin { return .inside }
        if distance >= margin { return .outside }
        return .uncertain
    }
}

public import LocusProtocol

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

    /// What a fix `signedDistanceMeters` from the boundary (negative inside) says, given its
    /// margin: `.inside` or `.outside` by at least the margin, `.unknown` within it — the fix
    /// cannot tell, so the state holds. The same type as the committed state, so the two
    /// compare directly.
    @inline(__always)
    public static func vote(signedDistanceMeters distance: Double, marginMeters margin: Double) -> RegionState {
        if distance <= -margin { return .inside }
        if distance >= margin { return .outside }
        return .unknown
    }
}

/// Estimates when a boundary was crossed from the two fixes that straddle it, assuming
/// steady motion between them: the fix reporting a transition is often seconds after
/// the crossing itself (sparse fixes, debounce), and consumers want the crossing.
public enum CrossingInterpolation {
    /// The time the signed distance reached zero, linearly between (t0, d0) and (t1, d1);
    /// nil when the fixes do not straddle the boundary or are out of order.
    public static func time(from t0: Double, signedDistance d0: Double, to t1: Double, signedDistance d1: Double) -> Double? {
        guard t1 >= t0, (d0 < 0) != (d1 < 0), d0 != d1 else { return nil }
        let fraction = d0 / (d0 - d1)
        return t0 + (t1 - t0) * min(max(fraction, 0), 1)
    }
}

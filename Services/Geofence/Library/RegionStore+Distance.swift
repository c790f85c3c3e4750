import LocusGeo

extension RegionStore {
    /// The signed distance from `point` to the region in `slot` (negative inside), exact
    /// wherever it matters: for a circle the estimate decides unless it lies within its
    /// error of a threshold the decisions compare it with (the boundary, where the sign sets
    /// the crossing, and ± the fix's margin); only then is the exact geodesic computed.
    /// Elsewhere the value differs from the exact one by micrometres, which moves an
    /// interpolated crossing time by nothing measurable.
    func signedDistance(_ region: RegionEssentials, slot: Int, _ point: Coordinate, marginMeters margin: Double) -> Double {
        if let circle = region.circle {
            let (estimate, error) = circle.signedDistanceEstimate(point)
            return Self.needsExact(estimate, error: error, margin: margin) ? circle.signedDistance(point) : estimate
        }
        // A polygon's distance is searched only when it may be within the margin: deeper
        // inside or farther out, its grid answers with a bound that decides the same way.
        if let probe = probe(inSlot: slot) { return probe.signedDistanceMeters(point, exactWithin: margin) }
        guard let shape = filed(inSlot: slot)?.monitored.shape else { return .infinity }
        return shape.signedDistanceMeters(point, exactWithin: margin)
    }

    @inline(__always)
    private static func needsExact(_ estimate: Double, error: Double, margin: Double) -> Bool {
        guard error > 0 else { return false }
        let size = abs(estimate)
        return size <= error || abs(size - margin) <= error
    }
}

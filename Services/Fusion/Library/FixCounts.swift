/// The counters fusion moves for nearly every fix, as integers in a fixed table: counting
/// builds and hashes no string. `values` gives them the names `health.fusion` reports.
struct FixCounts: Sendable {
    enum Name: Int, CaseIterable {
        case initialized, fused, fusedLate, rejectedOutlier, reanchored, tooOld
        case velocityFused, velocityRejected, held, duplicateFixes

        /// The counter's name in `health.fusion`.
        var key: String {
            switch self {
            case .initialized: return "fix.initialized"
            case .fused: return "fix.fused"
            case .fusedLate: return "fix.fusedLate"
            case .rejectedOutlier: return "fix.rejectedOutlier"
            case .reanchored: return "fix.reanchored"
            case .tooOld: return "fix.tooOld"
            case .velocityFused: return "velocity.fused"
            case .velocityRejected: return "velocity.rejected"
            case .held: return "held"
            case .duplicateFixes: return "duplicateFixes"
            }
        }
    }

    private var counts = [Int](repeating: 0, count: Name.allCases.count)

    mutating func add(_ name: Name) { counts[name.rawValue] += 1 }

    mutating func add(_ outcome: DeviceFilter.Outcome) {
        switch outcome {
        case .initialized: add(Name.initialized)
        case .fused: add(Name.fused)
        case .fusedLate: add(Name.fusedLate)
        case .rejectedOutlier: add(Name.rejectedOutlier)
        case .reanchored: add(Name.reanchored)
        case .tooOld: add(Name.tooOld)
        }
    }

    /// The counters that moved, by name (one that never moved is absent, as before it first counts).
    var values: [String: Int] {
        var values: [String: Int] = [:]
        for name in Name.allCases where counts[name.rawValue] > 0 { values[name.key] = counts[name.rawValue] }
        return values
    }
}

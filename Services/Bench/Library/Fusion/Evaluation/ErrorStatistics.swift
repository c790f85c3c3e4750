import Foundation
import LocusFusion

/// Summary of horizontal errors (metres) and of how often the reported radius held the truth.
public struct ErrorStatistics: Sendable, Equatable {
    public var count: Int
    public var rmse: Double
    public var p50: Double
    public var p95: Double
    /// Fraction of errors ≤ the reported `hacc` (the goal for a 68 % radius is near 0.68).
    public var coverage: Double

    public init(errors: [Double], radii: [Double]) {
        precondition(errors.count == radii.count)
        count = errors.count
        guard !errors.isEmpty else {
            rmse = .nan; p50 = .nan; p95 = .nan; coverage = .nan
            return
        }
        rmse = (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
        let sorted = errors.sorted()
        p50 = Self.percentile(sorted, 0.50)
        p95 = Self.percentile(sorted, 0.95)
        coverage = Double(zip(errors, radii).filter { $0 <= $1 }.count) / Double(errors.count)
    }

    /// Linear interpolation between closest ranks.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
    }
}

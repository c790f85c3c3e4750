/// The coarse accuracy class carried in every fused message (`tier`), so a client can act on
/// "good enough" without choosing its own thresholds: high ≤ 10 m, medium ≤ 50, low ≤ 100.
public enum AccuracyTier: String, Sendable, Equatable, CaseIterable {
    case high, medium, low, insufficient

    public init(haccMeters: Double) {
        switch haccMeters {
        case ...10: self = .high
        case ...50: self = .medium
        case ...100: self = .low
        default: self = .insufficient
        }
    }
}

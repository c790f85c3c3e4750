/// Chi-square test on a fix's innovation: a fix whose squared Mahalanobis distance from the
/// prediction exceeds the threshold is an outlier and is not fused. A run of rejections
/// means the filter, not the fixes, is wrong (a tunnel exit, a teleport after a restart),
/// so after `reanchorAfter` consecutive rejections the filter re-anchors on the fix.
public struct OutlierGate: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable { case accept, reject, reanchor }

    /// Threshold on d² with 2 degrees of freedom; 13.8 rejects 0.1 % of good fixes.
    public var chiSquareThreshold: Double
    public var reanchorAfter: Int
    public private(set) var consecutiveRejections = 0

    public init(chiSquareThreshold: Double = 13.8, reanchorAfter: Int = 3) {
        self.chiSquareThreshold = chiSquareThreshold
        self.reanchorAfter = reanchorAfter
    }

    public mutating func judge(mahalanobisSquared: Double) -> Verdict {
        guard mahalanobisSquared > chiSquareThreshold else {
            consecutiveRejections = 0
            return .accept
        }
        consecutiveRejections += 1
        if consecutiveRejections >= reanchorAfter {
            consecutiveRejections = 0
            return .reanchor
        }
        return .reject
    }
}

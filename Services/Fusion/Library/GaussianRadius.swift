import Foundation

/// Conversions between a per-axis standard deviation and the radius docs/protocol.md calls
/// `hacc` (holds the truth 68 % of the time). For a circular 2-D Gaussian the radius
/// holding a fraction p is σ·√(−2 ln(1 − p)); for p = 0.68 that is 1.5096 σ.
public enum GaussianRadius {
    public static let radius68PerSigma = (-2 * log(1 - 0.68)).squareRoot()

    public static func sigma(fromHacc hacc: Double) -> Double { hacc / radius68PerSigma }
    public static func hacc(fromSigma sigma: Double) -> Double { sigma * radius68PerSigma }
}

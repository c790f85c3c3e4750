/// Turns what a receiver says about its error into our `hacc`: the radius of the
/// circle holding the true position with 68% probability.
///
/// Preference: GST (the receiver's own per-axis one-sigma errors), then GBS (RAIM
/// expected errors, also one sigma), then HDOP times a user-equivalent range error
/// (UERE) that depends on the fix quality, then a fixed default.
///
/// For a circular Gaussian with per-axis sigma σ the 68% radius is
/// σ·√(−2 ln 0.32) ≈ 1.5096 σ. HDOP·UERE is the horizontal DRMS (σ·√2), so the 68%
/// radius is ≈ 1.0674 · HDOP · UERE. gpsd's `eph` uses a different (95%, larger
/// UERE) convention and is not what we report.
public enum NMEAAccuracyModel {
    /// Ratio of the 68% radius to the per-axis sigma of a circular Gaussian.
    public static let radius68PerSigma = 1.5096
    /// Radius reported when the receiver gives no error information at all (metres).
    public static let defaultRadiusMeters = 50.0

    /// One-sigma user-equivalent range error in metres for a GGA fix quality.
    /// Autonomous L1: 5 m; DGPS/SBAS: 2 m; RTK float: 0.5 m; RTK fixed: 0.05 m.
    public static func uereMeters(quality: Int?) -> Double {
        switch quality {
        case 2, 9: 2.0
        case 4: 0.05
        case 5: 0.5
        default: 5.0
        }
    }

    /// 68% radius from per-axis one-sigma errors (GST or GBS) in metres.
    public static func radius68(sigmaLatMeters: Double, sigmaLonMeters: Double) -> Double {
        radius68PerSigma * ((sigmaLatMeters * sigmaLatMeters + sigmaLonMeters * sigmaLonMeters) / 2).squareRoot()
    }

    /// 68% radius from HDOP under the UERE model above.
    public static func radius68(hdop: Double, quality: Int?) -> Double {
        radius68PerSigma / 2.0.squareRoot() * hdop * uereMeters(quality: quality)
    }
}

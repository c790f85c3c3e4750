/// How Locus's accuracies become gpsd's error estimates, and back.
///
/// Locus carries 68 % figures: `hacc` is the radius of the circle holding the true
/// position 68 % of the time, `vacc`, `speedAcc` and `courseAcc` are one-sigma bounds.
/// gpsd's `ep*` fields are "guessed to be 95 % confidence" (gpsd_json(5)). Assuming a
/// circular Gaussian with the same sigma σ on each axis (the model fusion itself uses,
/// docs/fusion.md):
///
/// - σ = hacc / 1.5096, because the 68 % radius of such a Gaussian is σ·√(−2 ln 0.32);
/// - `epx` = `epy` = 1.96 σ, the 95 % bound of one axis;
/// - `eph` = 2.4477 σ, the 95 % radius, σ·√(−2 ln 0.05);
/// - `epv` = 1.96 · vacc, `eps` = 1.96 · speedAcc, `epd` = 1.96 · courseAcc.
///
/// These are exactly the conventions Locus's own gpsd client reads back with
/// (`GPSDReport` in the provider: σ = epx / 1.96, vacc = epv / 1.96), so a fix that goes
/// through `locus-gpsd` and `locus-provider gpsd` keeps its `hacc`.
///
/// NMEA has no 95 % figure: GST carries the one-sigma errors themselves (σ for latitude
/// and longitude, `vacc` for altitude), and GGA/GSA's HDOP — when the source gave none —
/// is the HDOP for which the common autonomous-receiver model (HDOP × 5 m UERE as the
/// horizontal DRMS, the model of the provider's `NMEAAccuracyModel`) gives back `hacc`.
public enum GpsdErrorModel {
    /// The 68 % radius of a circular Gaussian in units of its per-axis sigma.
    public static let radius68PerSigma = 1.5096
    /// The 95 % radius of a circular Gaussian in units of its per-axis sigma.
    public static let radius95PerSigma = 2.4477
    /// The two-sided 95 % bound of one Gaussian axis in sigmas.
    public static let bound95PerSigma = 1.96
    /// One-sigma user-equivalent range error of an autonomous receiver (metres).
    public static let autonomousUEREMeters = 5.0

    /// Per-axis one-sigma error (metres) of a fix with 68 % radius `hacc`.
    public static func sigmaMeters(hacc: Double) -> Double { hacc / radius68PerSigma }

    /// gpsd's `epx` and `epy` (95 % per axis, metres).
    public static func axisError95(hacc: Double) -> Double { bound95PerSigma * sigmaMeters(hacc: hacc) }

    /// gpsd's `eph` (95 % horizontal radius, metres).
    public static func horizontalError95(hacc: Double) -> Double { radius95PerSigma * sigmaMeters(hacc: hacc) }

    /// gpsd's `epv`, `eps`, `epd`, `epc` from a one-sigma figure.
    public static func bound95(oneSigma: Double) -> Double { bound95PerSigma * oneSigma }

    /// The HDOP written in GGA and GSA when the source reported none (see the type's comment).
    public static func hdop(hacc: Double) -> Double {
        hacc / (radius68PerSigma / 2.0.squareRoot() * autonomousUEREMeters)
    }

    /// Climb rate (m/s) between two altitudes and its one-sigma error, when the pair is
    /// usable: both altitudes known, 0 < dt ≤ `maximumSeconds`. The error treats the two
    /// altitude errors as independent, which overstates it when they share a source.
    public static func climb(from previous: (alt: Double, vacc: Double?, t: Double), to current: (alt: Double, vacc: Double?, t: Double),
                             maximumSeconds: Double = 10) -> (rate: Double, sigma: Double?)? {
        let dt = current.t - previous.t
        guard dt > 0, dt <= maximumSeconds else { return nil }
        let rate = (current.alt - previous.alt) / dt
        guard let a = previous.vacc, let b = current.vacc else { return (rate, nil) }
        return (rate, (a * a + b * b).squareRoot() / dt)
    }
}

import Foundation

/// WGS-84 constants for Karney's geodesic method, with the longitude series (A₃, C₃,
/// eqs. 24–25) already expanded in the third flattening n, so a solve only evaluates
/// polynomials in ε. Immutable after first use, hence safe to share between threads.
struct GeodesicEllipsoid: Sendable {
    static let wgs84 = GeodesicEllipsoid(equatorialRadiusMeters: WGS84.semiMajorAxisMeters, flattening: WGS84.flattening)

    /// a, metres.
    let equatorialRadiusMeters: Double
    /// f.
    let flattening: Double
    /// 1 − f: tan β = (1 − f) tan φ maps latitude to reduced latitude.
    let oneMinusFlattening: Double
    /// b = a (1 − f), metres.
    let polarRadiusMeters: Double
    /// e′² = e² / (1 − f)², the second eccentricity squared.
    let secondEccentricitySquared: Double
    /// n = f / (2 − f).
    let thirdFlattening: Double
    /// Threshold on sin σ₁₂ under which the short-line starting guess is final.
    let shortLineTolerance: Double

    /// A₃ as a polynomial in ε: coefficient of ε⁰…ε⁵.
    private let longitudeScaleTerms: (Double, Double, Double, Double, Double, Double)
    /// C₃ₗ as polynomials in ε, l = 1…5: for each l the coefficients of εˡ, εˡ⁺¹, …, ε⁵.
    private let longitudeTerms: LongitudeTerms

    private struct LongitudeTerms {
        var l1: (Double, Double, Double, Double, Double)
        var l2: (Double, Double, Double, Double)
        var l3: (Double, Double, Double)
        var l4: (Double, Double)
        var l5: Double
    }

    init(equatorialRadiusMeters a: Double, flattening f: Double) {
        equatorialRadiusMeters = a
        flattening = f
        oneMinusFlattening = 1 - f
        polarRadiusMeters = a * (1 - f)
        let e2 = f * (2 - f)
        secondEccentricitySquared = e2 / ((1 - f) * (1 - f))
        let n = f / (2 - f)
        thirdFlattening = n
        let machineRoot = Double.ulpOfOne.squareRoot()
        shortLineTolerance = 0.1 * machineRoot / (max(0.001, abs(f)) * min(1, 1 - f / 2) / 2).squareRoot()

        longitudeScaleTerms = (
            1,
            -(1 - n) / 2,
            -(1.0 / 4 + n * (1.0 / 8 - n * 3 / 8)),
            -(1.0 / 16 + n * (3.0 / 16 + n / 16)),
            -(3.0 / 64 + n / 32),
            -3.0 / 128
        )
        longitudeTerms = LongitudeTerms(
            l1: ((1 - n) / 4, (1 - n * n) / 8, 3.0 / 64 + n * (3.0 / 64 - n / 64), 5.0 / 128 + n / 64, 3.0 / 128),
            l2: (1.0 / 16 + n * (-3.0 / 32 + n / 32), 3.0 / 64 + n * (-1.0 / 32 - n * 3 / 64), 3.0 / 128 + n / 128, 5.0 / 256),
            l3: (5.0 / 192 + n * (-3.0 / 64 + n * 5 / 192), 3.0 / 128 - n * 5 / 192, 7.0 / 512),
            l4: (7.0 / 512 - n * 7 / 256, 7.0 / 512),
            l5: 21.0 / 2560
        )
    }

    /// A₃(ε) (eq. 24): the longitude integral's secular scale.
    func longitudeScale(_ eps: Double) -> Double {
        let k = longitudeScaleTerms
        return k.0 + eps * (k.1 + eps * (k.2 + eps * (k.3 + eps * (k.4 + eps * k.5))))
    }

    /// C₃ₗ(ε) (eq. 25): I₃(σ) = A₃ (σ + Σ C₃ₗ sin 2lσ).
    func longitudeSeries(_ eps: Double) -> SineSeries {
        let t = longitudeTerms
        let e1 = eps, e2 = eps * eps, e3 = e2 * eps, e4 = e2 * e2, e5 = e4 * eps
        return SineSeries(
            c1: e1 * (t.l1.0 + eps * (t.l1.1 + eps * (t.l1.2 + eps * (t.l1.3 + eps * t.l1.4)))),
            c2: e2 * (t.l2.0 + eps * (t.l2.1 + eps * (t.l2.2 + eps * t.l2.3))),
            c3: e3 * (t.l3.0 + eps * (t.l3.1 + eps * t.l3.2)),
            c4: e4 * (t.l4.0 + eps * t.l4.1),
            c5: e5 * t.l5,
            c6: 0
        )
    }
}

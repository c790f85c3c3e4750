import Foundation

/// A truncated Fourier sine series Σ cₗ sin(2lσ), l = 1…6, as used by every integral in
/// Karney's geodesic method (distance, its inverse, longitude). Stored inline so solving a
/// geodesic allocates nothing.
struct SineSeries {
    var c1 = 0.0, c2 = 0.0, c3 = 0.0, c4 = 0.0, c5 = 0.0, c6 = 0.0

    /// Value of the series at σ given sin σ and cos σ, by Clenshaw's recurrence on
    /// cos 2σ: bₗ = cₗ + 2 cos 2σ · bₗ₊₁ − bₗ₊₂, sum = b₁ sin 2σ.
    func value(sin s: Double, cos c: Double) -> Double {
        let twiceCos2 = 2 * (c - s) * (c + s)
        var next = 0.0, current = c6
        (current, next) = (c5 + twiceCos2 * current - next, current)
        (current, next) = (c4 + twiceCos2 * current - next, current)
        (current, next) = (c3 + twiceCos2 * current - next, current)
        (current, next) = (c2 + twiceCos2 * current - next, current)
        current = c1 + twiceCos2 * current - next
        return 2 * s * c * current
    }
}

/// The series of Karney (2013) in the small parameter ε = (√(1+k²) − 1)/(√(1+k²) + 1),
/// k = e′ cos α₀, to sixth order. They depend only on ε, not on the ellipsoid.
enum GeodesicSeries {
    /// A₁ − 1 (eq. 17): scale from the auxiliary sphere's σ to distance in units of b.
    static func distanceScaleMinusOne(_ eps: Double) -> Double {
        let e2 = eps * eps
        let even = e2 * (1.0 / 4 + e2 * (1.0 / 64 + e2 / 256))
        return (even + eps) / (1 - eps)
    }

    /// C₁ₗ (eq. 18): distance integral I₁(σ) = A₁ (σ + Σ C₁ₗ sin 2lσ).
    static func distanceSeries(_ eps: Double) -> SineSeries {
        let e2 = eps * eps
        var p = eps, series = SineSeries()
        series.c1 = p * (-1.0 / 2 + e2 * (3.0 / 16 - e2 / 32)); p *= eps
        series.c2 = p * (-1.0 / 16 + e2 * (1.0 / 32 - e2 * 9 / 2048)); p *= eps
        series.c3 = p * (-1.0 / 48 + e2 * 3 / 256); p *= eps
        series.c4 = p * (-5.0 / 512 + e2 * 3 / 512); p *= eps
        series.c5 = p * (-7.0 / 1280); p *= eps
        series.c6 = p * (-7.0 / 2048)
        return series
    }

    /// C′₁ₗ (eq. 21): the reverted series, σ = τ + Σ C′₁ₗ sin 2lτ with τ = s / (b A₁).
    static func inverseDistanceSeries(_ eps: Double) -> SineSeries {
        let e2 = eps * eps
        var p = eps, series = SineSeries()
        series.c1 = p * (1.0 / 2 + e2 * (-9.0 / 32 + e2 * 205 / 1536)); p *= eps
        series.c2 = p * (5.0 / 16 + e2 * (-37.0 / 96 + e2 * 1335 / 4096)); p *= eps
        series.c3 = p * (29.0 / 96 - e2 * 75 / 128); p *= eps
        series.c4 = p * (539.0 / 1536 - e2 * 2391 / 2560); p *= eps
        series.c5 = p * (3467.0 / 7680); p *= eps
        series.c6 = p * (38081.0 / 61440)
        return series
    }

    /// A₂ − 1 (eq. 42), for the reduced length, A₂ = (1 − ε)(1 + ε²/4 + 9ε⁴/64 + 25ε⁶/256).
    static func reducedScaleMinusOne(_ eps: Double) -> Double {
        let e2 = eps * eps
        let even = e2 * (1.0 / 4 + e2 * (9.0 / 64 + e2 * 25 / 256))
        return even * (1 - eps) - eps
    }

    /// C₂ₗ (eq. 43): I₂(σ) = A₂ (σ + Σ C₂ₗ sin 2lσ).
    static func reducedSeries(_ eps: Double) -> SineSeries {
        let e2 = eps * eps
        var p = eps, series = SineSeries()
        series.c1 = p * (1.0 / 2 + e2 * (1.0 / 16 + e2 / 32)); p *= eps
        series.c2 = p * (3.0 / 16 + e2 * (1.0 / 32 + e2 * 35 / 2048)); p *= eps
        series.c3 = p * (5.0 / 48 + e2 * 5 / 256); p *= eps
        series.c4 = p * (35.0 / 512 + e2 * 7 / 512); p *= eps
        series.c5 = p * (63.0 / 1280); p *= eps
        series.c6 = p * (77.0 / 2048)
        return series
    }
}

import Foundation

/// The two end points of an inverse problem in canonical position, as reduced latitudes β
/// (sin, cos) and dn = √(1 + e′² sin² β), with the pieces the inverse solver evaluates on them.
struct EndPoints {
    var sbet1: Double, cbet1: Double, dn1: Double
    var sbet2: Double, cbet2: Double, dn2: Double

    /// Distance and reduced length along the arc σ₁ → σ₂, both in units of b.
    struct Lengths {
        var distance: Double
        /// m₁₂ / b: negative once the line has passed a point conjugate to the start.
        var reduced: Double
    }

    /// s₁₂ = b A₁ (σ₁₂ + ΔI₁) and m₁₂ from I₁ − I₂ (Karney eqs. 7, 38–41).
    func lengths(_ e: GeodesicEllipsoid, eps: Double, sig12: Double, ssig1: Double, csig1: Double, ssig2: Double, csig2: Double) -> Lengths {
        let a1m1 = GeodesicSeries.distanceScaleMinusOne(eps)
        let a2m1 = GeodesicSeries.reducedScaleMinusOne(eps)
        let c1 = GeodesicSeries.distanceSeries(eps), c2 = GeodesicSeries.reducedSeries(eps)
        let b1 = c1.value(sin: ssig2, cos: csig2) - c1.value(sin: ssig1, cos: csig1)
        let b2 = c2.value(sin: ssig2, cos: csig2) - c2.value(sin: ssig1, cos: csig1)
        let a1 = 1 + a1m1, a2 = 1 + a2m1
        let j12 = (a1m1 - a2m1) * sig12 + (a1 * b1 - a2 * b2)
        let reduced = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return Lengths(distance: a1 * (sig12 + b1), reduced: reduced)
    }

    /// λ₁₂(α₁) minus the wanted longitude difference, and its derivative in α₁ (eq. 46).
    func longitudeResidual(_ e: GeodesicEllipsoid, salp1: Double, calp1 startCos: Double, slam12: Double, clam12: Double, withDerivative: Bool) -> LongitudeResidual {
        let tiny = Double.leastNormalMagnitude.squareRoot()
        // Heading due north or south from the equator: nudge so the node is defined.
        let calp1 = (sbet1 == 0 && startCos == 0) ? -tiny : startCos

        let salp0 = salp1 * cbet1
        let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()

        var ssig1 = sbet1, csig1 = calp1 * cbet1
        let somg1 = salp0 * sbet1, comg1 = csig1
        normalizeSinCos(&ssig1, &csig1)

        // Clairaut: sin α₂ cos β₂ = sin α₀; cos α₂ from the difference of the cos² β (stable).
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2: Double
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            let spread = cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)
            calp2 = ((calp1 * cbet1) * (calp1 * cbet1) + spread).squareRoot() / cbet2
        } else {
            calp2 = abs(calp1)
        }
        var ssig2 = sbet2, csig2 = calp2 * cbet2
        let somg2 = salp0 * sbet2, comg2 = csig2
        normalizeSinCos(&ssig2, &csig2)

        let sig12 = atan2(clampedNonNegative(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        let somg12 = clampedNonNegative(comg1 * somg2 - somg1 * comg2)
        let comg12 = comg1 * comg2 + somg1 * somg2
        // ω₁₂ − λ₁₂(wanted), as one angle so no precision is lost near ±π.
        let eta = atan2(somg12 * clam12 - comg12 * slam12, comg12 * clam12 + somg12 * slam12)

        let k2 = calp0 * calp0 * e.secondEccentricitySquared
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let c3 = e.longitudeSeries(eps)
        let b312 = c3.value(sin: ssig2, cos: csig2) - c3.value(sin: ssig1, cos: csig1)
        let domg12 = -e.flattening * e.longitudeScale(eps) * salp0 * (sig12 + b312)

        var derivative = 0.0
        if withDerivative {
            if calp2 == 0 {
                derivative = -2 * e.oneMinusFlattening * dn1 / sbet1
            } else {
                let reduced = lengths(e, eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2).reduced
                derivative = reduced * e.oneMinusFlattening / (calp2 * cbet2)
            }
        }
        return LongitudeResidual(
            value: eta + domg12, derivative: derivative,
            salp1: salp1, calp1: startCos, salp2: salp2, calp2: calp2,
            sig12: sig12, ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2, eps: eps
        )
    }
}

/// One evaluation of λ₁₂(α₁) with the line it describes, so the last one can be reused for
/// the distance once Newton's method has converged.
struct LongitudeResidual {
    var value = Double.nan, derivative = 0.0
    var salp1 = Double.nan, calp1 = Double.nan, salp2 = Double.nan, calp2 = Double.nan
    var sig12 = Double.nan, ssig1 = Double.nan, csig1 = Double.nan, ssig2 = Double.nan, csig2 = Double.nan
    var eps = Double.nan
}

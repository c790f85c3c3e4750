import Foundation

/// The first estimate of α₁ for the inverse problem (Karney 2013, §5).
struct StartingGuess {
    var salp1: Double, calp1: Double
    /// Set when the points are so close that the guess is the answer.
    var shortLine: (sig12: Double, salp2: Double, calp2: Double, dnm: Double)?
}

extension EndPoints {
    /// Solves on a sphere: with the mean dn as radius for short lines (exact to round-off
    /// below the tolerance), or from the astroid when the points are nearly antipodal, where
    /// the spherical guess is poor because the shortest path bends round the ellipsoid.
    func startingGuess(_ e: GeodesicEllipsoid, lam12: Double, slam12: Double, clam12: Double) -> StartingGuess {
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1   // sin(β₂ − β₁)
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1  // sin(β₂ + β₁)
        let isShort = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5

        var somg12 = slam12, comg12 = clam12, dnm = 1.0
        if isShort {
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            dnm = (1 + e.secondEccentricitySquared * sbetm2).squareRoot()
            let omg12 = lam12 / (e.oneMinusFlattening * dnm)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        }

        // Great-circle azimuth on the auxiliary sphere, written to stay accurate near ω = 0 and π.
        var salp1 = cbet2 * somg12
        var calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = (salp1 * salp1 + calp1 * calp1).squareRoot()
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        var shortLine: (sig12: Double, salp2: Double, calp2: Double, dnm: Double)?
        let n = e.thirdFlattening
        if isShort && ssig12 < e.shortLineTolerance {
            var salp2 = cbet1 * somg12
            var calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            normalizeSinCos(&salp2, &calp2)
            shortLine = (atan2(ssig12, csig12), salp2, calp2, dnm)
        } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * Double.pi * cbet1 * cbet1 {
            // Not nearly antipodal: the spherical azimuth is a good enough start.
        } else {
            // Nearly antipodal: scale to the astroid's coordinates (x, y) about the antipode.
            let lam12x = atan2(-slam12, -clam12)  // λ₁₂ − π
            let k2 = sbet1 * sbet1 * e.secondEccentricitySquared
            let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
            let lamScale = e.flattening * cbet1 * e.longitudeScale(eps) * Double.pi
            let betScale = lamScale * cbet1
            let x = lam12x / lamScale, y = sbet12a / betScale
            if y > -200 * Double.ulpOfOne && x > -1 - 1000 * Double.ulpOfOne.squareRoot() {
                // On the line y = 0 inside the astroid: meridional-ish, closed form.
                salp1 = min(1, -x)
                calp1 = -(1 - salp1 * salp1).squareRoot()
            } else {
                let k = Self.astroidRoot(x: x, y: y)
                let omg12a = lamScale * (-x * k / (1 + k))
                let somg = sin(omg12a), comg = -cos(omg12a)
                salp1 = cbet2 * somg
                calp1 = sbet12a - cbet2 * sbet1 * somg * somg / (1 - comg)
            }
        }

        if salp1 > 0 {
            normalizeSinCos(&salp1, &calp1)
        } else {
            salp1 = 1
            calp1 = 0
        }
        return StartingGuess(salp1: salp1, calp1: calp1, shortLine: shortLine)
    }

    /// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (eq. 55), solved
    /// as a cubic in u and then a quadratic, arranged to avoid cancellation.
    static func astroidRoot(x: Double, y: Double) -> Double {
        let p = x * x, q = y * y
        let r = (p + q - 1) / 6
        if q == 0 && r <= 0 { return 0 }
        let s = p * q / 4
        let r2 = r * r, r3 = r * r2
        let discriminant = s * (s + 2 * r3)
        var u = r
        if discriminant >= 0 {
            var t3 = s + r3
            t3 += t3 < 0 ? -discriminant.squareRoot() : discriminant.squareRoot()
            let t = cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            let angle = atan2((-discriminant).squareRoot(), -(s + r3))
            u += 2 * r * cos(angle / 3)
        }
        let v = (u * u + q).squareRoot()
        let uv = u < 0 ? q / (v - u) : u + v
        let w = (uv - q) / (2 * v)
        return uv / ((uv + w * w).squareRoot() + w)
    }
}

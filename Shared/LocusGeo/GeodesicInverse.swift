import Foundation

/// The inverse geodesic problem (Karney 2013, §§3–5): the shortest path between two points.
///
/// The points are first brought to a canonical position (start in the southern hemisphere,
/// start further from the equator, eastward), then three cases are handled: meridians and
/// the equator in closed form, short lines from a spherical guess with a mean radius, and
/// everything else by Newton's method on the start azimuth α₁ until the longitude difference
/// λ₁₂(α₁) matches. Nearly antipodal points start from the astroid solution (§5), where
/// Vincenty's method fails to converge.
struct GeodesicInverseSolver {
    let ellipsoid: GeodesicEllipsoid

    /// Distance (metres) and the forward azimuths at both ends as (sin, cos) pairs.
    struct Solution {
        var distanceMeters: Double
        var sinAzimuth1: Double, cosAzimuth1: Double
        var sinAzimuth2: Double, cosAzimuth2: Double
    }

    private static let tiny = Double.leastNormalMagnitude.squareRoot()
    private static let tolerance0 = Double.ulpOfOne
    private static let tolerance1 = 200 * tolerance0
    private static let tolerance2 = tolerance0.squareRoot()
    private static let bisectionTolerance = tolerance0 * tolerance2
    private static let astroidThreshold = 1000 * tolerance2
    private static let newtonIterations = 20
    private static let maximumIterations = newtonIterations + Double.significandBitCount + 1 + 10

    func solve(lat1 latitude1: Double, lon1 longitude1: Double, lat2 latitude2: Double, lon2 longitude2: Double) -> Solution {
        let e = ellipsoid
        let tiny = Self.tiny

        // Canonical position: λ₁₂ ≥ 0, |φ₁| ≥ |φ₂|, φ₁ ≤ 0; the signs undo it at the end.
        var lon12 = DegreeTrig.longitudeDifference(longitude1, longitude2)
        var lonSign: Double = lon12 >= 0 ? 1 : -1
        lon12 = abs(lon12)
        let lam12 = lon12 * DegreeTrig.radiansPerDegree
        let (slam12, clam12) = DegreeTrig.sinCos(degrees: lon12)

        var lat1 = DegreeTrig.rounded(DegreeTrig.checkedLatitude(latitude1))
        var lat2 = DegreeTrig.rounded(DegreeTrig.checkedLatitude(latitude2))
        let swapSign: Double = abs(lat1) < abs(lat2) ? -1 : 1
        if swapSign < 0 {
            swap(&lat1, &lat2)
            lonSign = -lonSign
        }
        let latSign: Double = lat1 < 0 ? 1 : -1
        lat1 *= latSign
        lat2 *= latSign

        var (sbet1, cbet1) = DegreeTrig.sinCos(degrees: lat1)
        sbet1 *= e.oneMinusFlattening
        normalizeSinCos(&sbet1, &cbet1)
        cbet1 = max(tiny, cbet1)
        var (sbet2, cbet2) = DegreeTrig.sinCos(degrees: lat2)
        sbet2 *= e.oneMinusFlattening
        normalizeSinCos(&sbet2, &cbet2)
        cbet2 = max(tiny, cbet2)

        // Make equal-magnitude latitudes exactly equal so the symmetric cases stay symmetric.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = sbet2 < 0 ? sbet1 : -sbet1 }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }

        let dn1 = (1 + e.secondEccentricitySquared * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + e.secondEccentricitySquared * sbet2 * sbet2).squareRoot()
        let ends = EndPoints(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2)

        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var s12 = 0.0
        var solved = false

        // Meridian (or from the south pole): α₁ = λ₁₂ quadrant, σ from the reduced latitudes.
        if lat1 == -90 || slam12 == 0 {
            calp1 = clam12; salp1 = slam12
            calp2 = 1; salp2 = 0
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            let sig12 = atan2(clampedNonNegative(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
            var lengths = ends.lengths(e, eps: e.thirdFlattening, sig12: sig12, ssig1: ssig1, csig1: csig1, ssig2: ssig2, csig2: csig2)
            // A meridian is shortest unless it passes a conjugate point (m₁₂ < 0) over a long arc.
            if sig12 < 1 || lengths.reduced >= 0 {
                // Coincident points: round-off must not leave a tiny or negative length.
                if sig12 < 3 * tiny || (sig12 < Self.tolerance0 && (lengths.distance < 0 || lengths.reduced < 0)) {
                    lengths.distance = 0
                }
                s12 = lengths.distance * e.polarRadiusMeters
                solved = true
            }
        }

        // Equator, up to the point where the geodesic leaves it (λ₁₂ ≤ (1 − f) π).
        if !solved && sbet1 == 0 && lam12 <= Double.pi * e.oneMinusFlattening {
            calp1 = 0; calp2 = 0; salp1 = 1; salp2 = 1
            s12 = e.equatorialRadiusMeters * lam12
            solved = true
        }

        if !solved {
            let start = ends.startingGuess(e, lam12: lam12, slam12: slam12, clam12: clam12)
            salp1 = start.salp1; calp1 = start.calp1
            if let shortLine = start.shortLine {
                // Close enough that the spherical guess with a mean radius is already exact.
                salp2 = shortLine.salp2; calp2 = shortLine.calp2
                s12 = shortLine.sig12 * e.polarRadiusMeters * shortLine.dnm
            } else {
                let line = newton(ends, salp1: salp1, calp1: calp1, slam12: slam12, clam12: clam12)
                salp1 = line.salp1; calp1 = line.calp1
                salp2 = line.salp2; calp2 = line.calp2
                let lengths = ends.lengths(e, eps: line.eps, sig12: line.sig12, ssig1: line.ssig1, csig1: line.csig1, ssig2: line.ssig2, csig2: line.csig2)
                s12 = lengths.distance * e.polarRadiusMeters
            }
        }

        // Undo the canonical position.
        if swapSign < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapSign * lonSign; calp1 *= swapSign * latSign
        salp2 *= swapSign * lonSign; calp2 *= swapSign * latSign
        return Solution(distanceMeters: s12 + 0, sinAzimuth1: salp1, cosAzimuth1: calp1, sinAzimuth2: salp2, cosAzimuth2: calp2)
    }

    /// Newton's method on α₁ for λ₁₂(α₁) = λ₁₂, kept inside a bracket that shrinks with every
    /// evaluation; it falls back to bisection when a step leaves the bracket or stalls.
    private func newton(_ ends: EndPoints, salp1 startSin: Double, calp1 startCos: Double, slam12: Double, clam12: Double) -> LongitudeResidual {
        var salp1 = startSin, calp1 = startCos
        var lowSin = Self.tiny, lowCos = 1.0    // λ too small: α₁ lies beyond this
        var highSin = Self.tiny, highCos = -1.0 // λ too large: α₁ lies before this
        var nearlyDone = false, bisectedOut = false
        var residual = LongitudeResidual()
        for iteration in 0..<Self.maximumIterations {
            let wantsDerivative = iteration < Self.newtonIterations
            residual = ends.longitudeResidual(ellipsoid, salp1: salp1, calp1: calp1, slam12: slam12, clam12: clam12, withDerivative: wantsDerivative)
            let v = residual.value
            if bisectedOut || !(abs(v) >= (nearlyDone ? 8 : 1) * Self.tolerance0) { break }
            // Past the Newton budget every evaluation narrows the bracket unconditionally.
            if v > 0 && (iteration > Self.newtonIterations || calp1 / salp1 > highCos / highSin) {
                highSin = salp1; highCos = calp1
            } else if v < 0 && (iteration > Self.newtonIterations || calp1 / salp1 < lowCos / lowSin) {
                lowSin = salp1; lowCos = calp1
            }
            if wantsDerivative && residual.derivative > 0 {
                let step = -v / residual.derivative
                if abs(step) < Double.pi {
                    let sstep = sin(step), cstep = cos(step)
                    let nextSin = salp1 * cstep + calp1 * sstep
                    if nextSin > 0 {
                        calp1 = calp1 * cstep - salp1 * sstep
                        salp1 = nextSin
                        normalizeSinCos(&salp1, &calp1)
                        nearlyDone = abs(v) <= 16 * Self.tolerance0
                        continue
                    }
                }
            }
            salp1 = (lowSin + highSin) / 2
            calp1 = (lowCos + highCos) / 2
            normalizeSinCos(&salp1, &calp1)
            nearlyDone = false
            bisectedOut = abs(lowSin - salp1) + (lowCos - calp1) < Self.bisectionTolerance
                || abs(salp1 - highSin) + (calp1 - highCos) < Self.bisectionTolerance
        }
        return residual
    }
}

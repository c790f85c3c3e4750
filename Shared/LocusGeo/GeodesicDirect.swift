import Foundation

/// The direct geodesic problem (Karney 2013, §4): from a start point, an azimuth and a
/// distance, find the end point. The distance maps to arc length σ on the auxiliary sphere
/// through the reverted series C′₁, and the spherical longitude ω to the ellipsoidal λ
/// through the A₃/C₃ series.
struct GeodesicDirectSolver {
    let ellipsoid: GeodesicEllipsoid

    /// End point (latitude, longitude in degrees; longitude not yet normalised).
    func solve(latitudeDegrees lat1: Double, longitudeDegrees lon1: Double, azimuthDegrees azi1: Double, distanceMeters s12: Double) -> (lat: Double, lon: Double) {
        let e = ellipsoid
        let tiny = Double.leastNormalMagnitude.squareRoot()

        let (salp1, calp1) = DegreeTrig.sinCos(degrees: DegreeTrig.rounded(azi1))
        var (sbet1, cbet1) = DegreeTrig.sinCos(degrees: DegreeTrig.rounded(DegreeTrig.checkedLatitude(lat1)))
        sbet1 *= e.oneMinusFlattening
        normalizeSinCos(&sbet1, &cbet1)
        cbet1 = max(tiny, cbet1)

        // The geodesic's equator crossing: α₀ and the arc σ₁ from the node to the start.
        let salp0 = salp1 * cbet1
        let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()
        var ssig1 = sbet1, csig1 = (sbet1 != 0 || calp1 != 0) ? cbet1 * calp1 : 1
        let somg1 = salp0 * sbet1, comg1 = csig1
        normalizeSinCos(&ssig1, &csig1)

        let k2 = calp0 * calp0 * e.secondEccentricitySquared
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)

        // Distance → σ: τ = s / (b A₁), then σ = τ + C′₁ series, anchored at σ₁.
        let a1 = 1 + GeodesicSeries.distanceScaleMinusOne(eps)
        let b11 = GeodesicSeries.distanceSeries(eps).value(sin: ssig1, cos: csig1)
        let sb11 = sin(b11), cb11 = cos(b11)
        let stau1 = ssig1 * cb11 + csig1 * sb11, ctau1 = csig1 * cb11 - ssig1 * sb11
        let tau12 = s12 / (e.polarRadiusMeters * a1)
        let stau12 = sin(tau12), ctau12 = cos(tau12)
        let b12 = -GeodesicSeries.inverseDistanceSeries(eps).value(
            sin: stau1 * ctau12 + ctau1 * stau12, cos: ctau1 * ctau12 - stau1 * stau12)
        let sig12 = tau12 - (b12 - b11)
        let ssig12 = sin(sig12), csig12 = cos(sig12)

        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12
        let sbet2 = calp0 * ssig2
        var cbet2 = (salp0 * salp0 + (calp0 * csig2) * (calp0 * csig2)).squareRoot()
        if cbet2 == 0 { cbet2 = tiny; csig2 = tiny }  // the end point is a pole

        // ω₁₂ on the auxiliary sphere, then λ₁₂ = ω₁₂ − f sin α₀ I₃.
        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let c3 = e.longitudeSeries(eps)
        let b31 = c3.value(sin: ssig1, cos: csig1), b32 = c3.value(sin: ssig2, cos: csig2)
        let lam12 = omg12 - e.flattening * salp0 * e.longitudeScale(eps) * (sig12 + (b32 - b31))

        let lat2 = DegreeTrig.atan2Degrees(sbet2, e.oneMinusFlattening * cbet2)
        let lon2 = remainder(remainder(lon1, 360) + remainder(lam12 / DegreeTrig.radiansPerDegree, 360), 360)
        return (lat2, lon2)
    }
}

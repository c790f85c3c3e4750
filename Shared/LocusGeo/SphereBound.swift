import Foundation

/// Conservative latitude/longitude reach of a distance, from a sphere that is never
/// longer than the ellipsoid.
///
/// WGS-84's smallest radius of curvature is the meridional one on the equator,
/// `a(1 − e²)` ≈ 6 335 439 m, and both radii of curvature are at least that everywhere.
/// Mapping the ellipsoid onto a sphere of that radius (same latitude and longitude)
/// therefore never lengthens a path, so every point within `d` metres on the ellipsoid
/// lies within `d` on that sphere, where caps have closed-form extents.
enum SphereBound {
    static let radiusMeters = WGS84.semiMajorAxisMeters * (1 - WGS84.eccentricitySquared)

    /// Half-width in degrees of longitude of the spherical cap of radius `distanceMeters`
    /// around a point at `latitudeDegrees`, or nil when the cap reaches a pole (every
    /// longitude is then within reach).
    static func longitudeHalfWidthDegrees(distanceMeters: Double, latitudeDegrees: Double) -> Double? {
        let rho = distanceMeters / radiusMeters
        let colatitude = (90 - abs(latitudeDegrees)) * Double.pi / 180
        guard rho < colatitude else { return nil }
        let ratio = sin(rho) / cos(latitudeDegrees * Double.pi / 180)
        guard ratio < 1 else { return nil }
        // A hair of padding absorbs rounding in asin and in callers' comparisons.
        return asin(ratio) * 180 / Double.pi * (1 + 1e-12) + 1e-12
    }

    /// Latitude reach in degrees of `distanceMeters` along a meridian on the sphere.
    static func latitudeReachDegrees(distanceMeters: Double) -> Double {
        distanceMeters / radiusMeters * 180 / Double.pi * (1 + 1e-12) + 1e-12
    }
}

extension BoundingBox {
    /// The box grown by `meters` on every side (a superset of every point within that
    /// distance of the box); it spans all longitudes once it reaches a pole.
    public func expanded(byMeters meters: Double) -> BoundingBox {
        guard meters > 0 else { return self }
        let dLat = SphereBound.latitudeReachDegrees(distanceMeters: meters)
        let south = max(-90, minLat - dLat)
        let north = min(90, maxLat + dLat)
        let poleward = max(abs(minLat), abs(maxLat))
        guard let dLon = SphereBound.longitudeHalfWidthDegrees(distanceMeters: meters, latitudeDegrees: poleward),
              south > -90, north < 90 else {
            return BoundingBox(minLat: south, minLon: -180, maxLat: north, maxLon: 180)
        }
        let width = crossesAntimeridian ? maxLon + 360 - minLon : maxLon - minLon
        if width + 2 * dLon >= 360 {
            return BoundingBox(minLat: south, minLon: -180, maxLat: north, maxLon: 180)
        }
        return BoundingBox(
            minLat: south,
            minLon: normalizedLongitude(minLon - dLon),
            maxLat: north,
            maxLon: normalizedLongitude(maxLon + dLon)
        )
    }
}

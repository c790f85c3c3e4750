import Foundation

/// The WGS-84 ellipsoid, the datum of every coordinate in Locus (GPS reports on it).
public enum WGS84 {
    /// Equatorial radius in metres.
    public static let semiMajorAxisMeters = 6_378_137.0
    /// Flattening.
    public static let flattening = 1 / 298.257223563
    /// First eccentricity squared, f(2 − f).
    public static let eccentricitySquared = flattening * (2 - flattening)

    /// Radius of curvature in the meridian (north–south), metres, at `latitudeRadians`.
    public static func meridionalRadiusMeters(latitudeRadians phi: Double) -> Double {
        let s = sin(phi)
        let w = 1 - eccentricitySquared * s * s
        return semiMajorAxisMeters * (1 - eccentricitySquared) / (w * w.squareRoot())
    }

    /// Radius of curvature in the prime vertical (east–west), metres, at `latitudeRadians`.
    public static func primeVerticalRadiusMeters(latitudeRadians phi: Double) -> Double {
        let s = sin(phi)
        return semiMajorAxisMeters / (1 - eccentricitySquared * s * s).squareRoot()
    }
}

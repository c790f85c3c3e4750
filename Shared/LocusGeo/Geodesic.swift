import Foundation

/// The solution of an inverse geodesic problem: how far and in which directions.
public struct GeodesicLine: Sendable, Hashable {
    /// Length of the shortest path on the ellipsoid, metres.
    public var distanceMeters: Double
    /// Forward azimuth at the start point, degrees clockwise from north, [0, 360).
    public var azimuth1Degrees: Double
    /// Forward azimuth at the end point (the direction of travel on arrival), [0, 360).
    public var azimuth2Degrees: Double

    public init(distanceMeters: Double, azimuth1Degrees: Double, azimuth2Degrees: Double) {
        self.distanceMeters = distanceMeters
        self.azimuth1Degrees = azimuth1Degrees
        self.azimuth2Degrees = azimuth2Degrees
    }
}

/// Exact geodesics on WGS-84 by Karney's method (C. F. F. Karney, "Algorithms for
/// geodesics", J. Geodesy 87, 43–55, 2013), implemented here in Swift.
///
/// Accurate to about 15 nm for any pair of points, including nearly antipodal ones where
/// Vincenty's method fails to converge. It costs one to two microseconds per call, so hot
/// paths (geofence tests, filters) use `FastDistance` / `LocalTangentPlane` and come back
/// here only when the approximation cannot decide. Pure value code: safe from any thread.
public enum Geodesic {
    /// Solves the inverse problem: distance and azimuths from `a` to `b`.
    public static func inverse(_ a: Coordinate, _ b: Coordinate) -> GeodesicLine {
        let solution = GeodesicInverseSolver(ellipsoid: .wgs84).solve(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
        return GeodesicLine(
            distanceMeters: solution.distanceMeters,
            azimuth1Degrees: normalizedAzimuth(DegreeTrig.atan2Degrees(solution.sinAzimuth1, solution.cosAzimuth1)),
            azimuth2Degrees: normalizedAzimuth(DegreeTrig.atan2Degrees(solution.sinAzimuth2, solution.cosAzimuth2))
        )
    }

    /// Distance in metres along the shortest path on the ellipsoid.
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        GeodesicInverseSolver(ellipsoid: .wgs84).solve(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon).distanceMeters
    }

    /// Initial bearing from `a` towards `b`, degrees clockwise from true north, [0, 360).
    public static func azimuth(from a: Coordinate, to b: Coordinate) -> Double {
        inverse(a, b).azimuth1Degrees
    }

    /// Solves the direct problem: where a geodesic started at `from` heading
    /// `azimuthDegrees` ends after `distanceMeters`. The longitude is in [−180, 180].
    public static func destination(from: Coordinate, azimuthDegrees: Double, distanceMeters: Double) -> Coordinate {
        let end = GeodesicDirectSolver(ellipsoid: .wgs84).solve(
            latitudeDegrees: from.lat, longitudeDegrees: from.lon, azimuthDegrees: azimuthDegrees, distanceMeters: distanceMeters)
        return Coordinate(lat: end.lat, lon: normalizedLongitude(end.lon))
    }

    /// Maps an azimuth in degrees into [0, 360).
    static func normalizedAzimuth(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value >= 360 ? 0 : value
    }
}

/// Maps a longitude in degrees into [−180, 180], keeping +180 as +180.
func normalizedLongitude(_ degrees: Double) -> Double {
    if degrees >= -180 && degrees <= 180 { return degrees }
    var value = (degrees + 180).truncatingRemainder(dividingBy: 360)
    if value < 0 { value += 360 }
    return value - 180
}

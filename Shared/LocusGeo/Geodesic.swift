import CProj
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

/// Exact geodesics on WGS-84 (Karney 2013, through proj's `geodesic.h`).
///
/// Accurate to about 15 nm for any pair of points, including nearly antipodal ones where
/// Vincenty's method fails to converge. It costs about a microsecond per call, so hot
/// paths (geofence tests, filters) use `FastDistance` / `LocalTangentPlane` and come back
/// here only when the approximation cannot decide.
public enum Geodesic {
    /// Solves the inverse problem: distance and azimuths from `a` to `b`.
    public static func inverse(_ a: Coordinate, _ b: Coordinate) -> GeodesicLine {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        geod_inverse(GeodesicEllipsoid.shared.pointer, a.lat, a.lon, b.lat, b.lon, &s12, &azi1, &azi2)
        return GeodesicLine(
            distanceMeters: s12,
            azimuth1Degrees: normalizedAzimuth(azi1),
            azimuth2Degrees: normalizedAzimuth(azi2)
        )
    }

    /// Distance in metres along the shortest path on the ellipsoid.
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        var s12 = 0.0
        geod_inverse(GeodesicEllipsoid.shared.pointer, a.lat, a.lon, b.lat, b.lon, &s12, nil, nil)
        return s12
    }

    /// Initial bearing from `a` towards `b`, degrees clockwise from true north, [0, 360).
    public static func azimuth(from a: Coordinate, to b: Coordinate) -> Double {
        inverse(a, b).azimuth1Degrees
    }

    /// Solves the direct problem: where a geodesic started at `from` heading
    /// `azimuthDegrees` ends after `distanceMeters`. The longitude is in [−180, 180].
    public static func destination(from: Coordinate, azimuthDegrees: Double, distanceMeters: Double) -> Coordinate {
        var lat2 = 0.0, lon2 = 0.0
        geod_direct(GeodesicEllipsoid.shared.pointer, from.lat, from.lon, azimuthDegrees, distanceMeters, &lat2, &lon2, nil)
        return Coordinate(lat: lat2, lon: normalizedLongitude(lon2))
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

/// The WGS-84 parameters prepared once by `geod_init`, kept at a stable address.
///
/// `geod_inverse` and `geod_direct` only read this storage, so sharing it between
/// threads is safe once it has been initialised.
private final class GeodesicEllipsoid: @unchecked Sendable {
    static let shared = GeodesicEllipsoid()

    let pointer: UnsafeMutablePointer<geod_geodesic>

    private init() {
        pointer = UnsafeMutablePointer<geod_geodesic>.allocate(capacity: 1)
        pointer.initialize(to: geod_geodesic())
        geod_init(pointer, WGS84.semiMajorAxisMeters, WGS84.flattening)
    }
}

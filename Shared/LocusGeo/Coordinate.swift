/// A WGS-84 position in degrees.
///
/// LocusGeo keeps its own coordinate type so it stays free of the wire protocol:
/// services convert at their edges, and the geometry can be reused by any tool.
public struct Coordinate: Sendable, Hashable {
    /// Latitude in degrees, −90…90, positive north.
    public var lat: Double
    /// Longitude in degrees, −180…180, positive east.
    public var lon: Double

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// True when both values are finite and in their ranges (lat −90…90, lon −180…180).
    public var isValid: Bool {
        lat.isFinite && lon.isFinite && abs(lat) <= 90 && abs(lon) <= 180
    }
}

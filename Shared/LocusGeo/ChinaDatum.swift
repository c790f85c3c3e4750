import Foundation

/// The map datums used in mainland China. The bus always carries WGS-84; GCJ-02 (the
/// obfuscated datum Chinese map tiles use) and BD-09 (Baidu's further offset of GCJ-02)
/// exist only at the edges — input from such a map, output drawn on one — and a position
/// is converted once, never twice.
public enum MapDatum: String, Sendable, CaseIterable {
    case wgs84, gcj02, bd09

    /// Converts `coordinate` from this datum to `target`. Points outside China pass through
    /// WGS-84 ↔ GCJ-02 unchanged, as every GCJ-02 implementation does.
    public func convert(_ coordinate: Coordinate, to target: MapDatum) -> Coordinate {
        if self == target { return coordinate }
        let wgs: Coordinate
        switch self {
        case .wgs84: wgs = coordinate
        case .gcj02: wgs = GCJ02.toWGS84(coordinate)
        case .bd09: wgs = GCJ02.toWGS84(BD09.toGCJ02(coordinate))
        }
        switch target {
        case .wgs84: return wgs
        case .gcj02: return GCJ02.fromWGS84(wgs)
        case .bd09: return BD09.fromGCJ02(GCJ02.fromWGS84(wgs))
        }
    }
}

/// GCJ-02: WGS-84 plus a smooth, position-dependent offset of a few hundred metres, computed
/// on the Krasovsky 1940 ellipsoid (the published formula; it has no closed-form inverse).
public enum GCJ02 {
    static let semiMajorAxis = 6_378_245.0
    static let eccentricitySquared = 0.006_693_421_622_965_943_23

    /// The rough bounding box outside of which no offset is applied.
    public static func isOutsideChina(_ c: Coordinate) -> Bool {
        c.lon < 72.004 || c.lon > 137.8347 || c.lat < 0.8293 || c.lat > 55.8271
    }

    public static func fromWGS84(_ wgs: Coordinate) -> Coordinate {
        if isOutsideChina(wgs) { return wgs }
        let offset = self.offset(at: wgs)
        return Coordinate(lat: wgs.lat + offset.lat, lon: wgs.lon + offset.lon)
    }

    /// The inverse by fixed-point iteration: each step removes the forward offset's residual.
    /// One step is the common approximation (errors up to about 2 m); iterating until the
    /// residual is below 1e-10° (about 1 cm and far less) makes it exact for practical use.
    public static func toWGS84(_ gcj: Coordinate, maximumIterations: Int = 30) -> Coordinate {
        if isOutsideChina(gcj) { return gcj }
        let first = offset(at: gcj)
        var wgs = Coordinate(lat: gcj.lat - first.lat, lon: gcj.lon - first.lon)
        for _ in 1..<max(1, maximumIterations) {
            let forward = fromWGS84(wgs)
            let dLat = gcj.lat - forward.lat
            let dLon = gcj.lon - forward.lon
            wgs = Coordinate(lat: wgs.lat + dLat, lon: wgs.lon + dLon)
            if abs(dLat) < 1e-11 && abs(dLon) < 1e-11 { break }
        }
        return wgs
    }

    static func offset(at wgs: Coordinate) -> (lat: Double, lon: Double) {
        let x = wgs.lon - 105
        let y = wgs.lat - 35
        var dLat = latitudeShift(x, y)
        var dLon = longitudeShift(x, y)
        let radLat = wgs.lat / 180 * .pi
        var magic = sin(radLat)
        magic = 1 - eccentricitySquared * magic * magic
        let sqrtMagic = magic.squareRoot()
        dLat = (dLat * 180) / ((semiMajorAxis * (1 - eccentricitySquared)) / (magic * sqrtMagic) * .pi)
        dLon = (dLon * 180) / (semiMajorAxis / sqrtMagic * cos(radLat) * .pi)
        return (dLat, dLon)
    }

    private static func latitudeShift(_ x: Double, _ y: Double) -> Double {
        var shift = -100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot()
        shift += (20 * sin(6 * x * .pi) + 20 * sin(2 * x * .pi)) * 2 / 3
        shift += (20 * sin(y * .pi) + 40 * sin(y / 3 * .pi)) * 2 / 3
        shift += (160 * sin(y / 12 * .pi) + 320 * sin(y * .pi / 30)) * 2 / 3
        return shift
    }

    private static func longitudeShift(_ x: Double, _ y: Double) -> Double {
        var shift = 300 + x + 2 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot()
        shift += (20 * sin(6 * x * .pi) + 20 * sin(2 * x * .pi)) * 2 / 3
        shift += (20 * sin(x * .pi) + 40 * sin(x / 3 * .pi)) * 2 / 3
        shift += (150 * sin(x / 12 * .pi) + 300 * sin(x / 30 * .pi)) * 2 / 3
        return shift
    }
}

/// BD-09: Baidu's offset of GCJ-02, a small rotation and scaling in lon/lat plus a shift.
public enum BD09 {
    static let factor = Double.pi * 3000 / 180

    public static func fromGCJ02(_ gcj: Coordinate) -> Coordinate {
        let x = gcj.lon
        let y = gcj.lat
        let z = (x * x + y * y).squareRoot() + 0.000_02 * sin(y * factor)
        let theta = atan2(y, x) + 0.000_003 * cos(x * factor)
        return Coordinate(lat: z * sin(theta) + 0.006, lon: z * cos(theta) + 0.0065)
    }

    /// The published closed-form inverse is off by up to ~15 cm; a few fixed-point steps on
    /// the forward formula make it exact (residual below 1e-11°).
    public static func toGCJ02(_ bd: Coordinate, maximumIterations: Int = 30) -> Coordinate {
        let x = bd.lon - 0.0065
        let y = bd.lat - 0.006
        let z = (x * x + y * y).squareRoot() - 0.000_02 * sin(y * factor)
        let theta = atan2(y, x) - 0.000_003 * cos(x * factor)
        var gcj = Coordinate(lat: z * sin(theta), lon: z * cos(theta))
        for _ in 1..<max(1, maximumIterations) {
            let forward = fromGCJ02(gcj)
            let dLat = bd.lat - forward.lat
            let dLon = bd.lon - forward.lon
            gcj = Coordinate(lat: gcj.lat + dLat, lon: gcj.lon + dLon)
            if abs(dLat) < 1e-11 && abs(dLon) < 1e-11 { break }
        }
        return gcj
    }
}

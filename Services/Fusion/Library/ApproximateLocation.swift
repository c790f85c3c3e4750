import Foundation
public import LocusGeo

/// The reduced-accuracy position for clients without precise permission (Core Location's
/// `reducedAccuracy`), documented in docs/fusion.md:
///
/// 1. Snap to a grid of `cellSizeMeters` cells (rows of equal latitude height, columns of
///    equal width in metres at the row's centre). The grid's origin is shifted per device by
///    a secret offset, HMAC-SHA256(secret, "grid", device), so cell edges are not public.
/// 2. Report the cell's centre moved by a per-period offset inside a disk of
///    `jitterRadiusMeters`, HMAC-SHA256(secret, "period", device, ⌊t / periodSeconds⌋): all
///    queries in one period get the same point, and the point cannot be recomputed without the secret.
/// 3. `hacc` = cell radius (half diagonal) + jitter radius, so the truth is always inside.
///
/// Averaging the points of many periods converges on the centre of the secret cell, never on
/// the position inside it: the grid does not move between periods (a grid that moved would
/// dither, and its average would converge on the truth).
public struct ApproximateLocation: Sendable {
    public var cellSizeMeters: Double
    public var periodSeconds: Double
    public var jitterRadiusMeters: Double
    private let secret: [UInt8]

    public init(secret: [UInt8], cellSizeMeters: Double = 2_500, periodSeconds: Double = 900, jitterRadiusMeters: Double? = nil) {
        self.secret = secret
        self.cellSizeMeters = cellSizeMeters
        self.periodSeconds = periodSeconds
        self.jitterRadiusMeters = jitterRadiusMeters ?? cellSizeMeters / 4
    }

    /// Radius of the reported circle: always at least the cell's half diagonal.
    public var haccMeters: Double { cellSizeMeters * 0.5 * 2.0.squareRoot() + jitterRadiusMeters }

    /// The period a time falls in; the reported point changes only when this does.
    public func periodIndex(t: Double) -> Int64 { Int64((t / periodSeconds).rounded(.down)) }

    /// The reduced point for `device` at `coordinate` and time `t`.
    public func reduce(_ coordinate: Coordinate, device: String, t: Double) -> Coordinate {
        let center = cellCenter(coordinate, device: device)
        let period = periodIndex(t: t)
        let (u1, u2) = uniformPair(label: "period", device: device, extra: String(period))
        let radius = jitterRadiusMeters * u1.squareRoot()
        let angle = 2 * Double.pi * u2
        let plane = LocalTangentPlane(origin: center)
        return plane.unproject(east: radius * sin(angle), north: radius * cos(angle))
    }

    /// The centre of the device's secret grid cell that holds `coordinate`.
    public func cellCenter(_ coordinate: Coordinate, device: String) -> Coordinate {
        let (shiftRow, shiftColumn) = uniformPair(label: "grid", device: device, extra: "")
        let rowHeightDegrees = cellSizeMeters / Self.metersPerDegreeLatitude
        let row = ((coordinate.lat - shiftRow * rowHeightDegrees) / rowHeightDegrees).rounded(.down)
        let centerLat = min(89.9, max(-89.9, (row + 0.5 + shiftRow) * rowHeightDegrees))
        let columnWidthDegrees = cellSizeMeters / (Self.metersPerDegreeLongitudeAtEquator * max(0.05, cos(centerLat * .pi / 180)))
        let column = ((coordinate.lon - shiftColumn * columnWidthDegrees) / columnWidthDegrees).rounded(.down)
        var centerLon = (column + 0.5 + shiftColumn) * columnWidthDegrees
        if centerLon > 180 { centerLon -= 360 } else if centerLon < -180 { centerLon += 360 }
        return Coordinate(lat: centerLat, lon: centerLon)
    }

    static let metersPerDegreeLatitude = 111_132.0
    static let metersPerDegreeLongitudeAtEquator = 111_320.0

    /// Two numbers uniform in [0, 1) from the first 16 bytes of the keyed hash of the label.
    private func uniformPair(label: String, device: String, extra: String) -> (Double, Double) {
        var message = Array("locus-approx-v1".utf8)
        for part in [label, device, extra] {
            message.append(0)
            message += Array(part.utf8)
        }
        let code = HMACSHA256.authenticationCode(key: secret, message: message)
        func unit(_ offset: Int) -> Double {
            var value: UInt64 = 0
            for index in offset..<offset + 8 { value = value << 8 | UInt64(code[index]) }
            return Double(value >> 11) / Double(UInt64(1) << 53)
        }
        return (unit(0), unit(8))
    }
}

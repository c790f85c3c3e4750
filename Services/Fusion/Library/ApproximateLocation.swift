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
///
/// The keyed hashes depend only on the device and the period, so a service keeps them per
/// device (`Offsets`): one hash per device and one per period, not two per fix.
public struct ApproximateLocation: Sendable {
    public var cellSizeMeters: Double
    public var periodSeconds: Double
    public var jitterRadiusMeters: Double
    private let mac: HMACSHA256

    /// The grid's cell size unless one is given (`--approx-cell`).
    public static let defaultCellSizeMeters = 2_500.0
    /// How long one reduced point holds unless told (`--approx-period`).
    public static let defaultPeriodSeconds = 900.0

    public init(secret: [UInt8], cellSizeMeters: Double = defaultCellSizeMeters, periodSeconds: Double = defaultPeriodSeconds,
                jitterRadiusMeters: Double? = nil) {
        self.mac = HMACSHA256(key: secret)
        self.cellSizeMeters = cellSizeMeters
        self.periodSeconds = periodSeconds
        self.jitterRadiusMeters = jitterRadiusMeters ?? cellSizeMeters / 4
    }

    /// One device's secret values: its grid shift (fixed) and the jitter of the period it was
    /// last asked about, with the point that gave, so a fix in the same cell and period costs
    /// no projection either.
    public struct Offsets: Sendable {
        let device: String
        let shift: (row: Double, column: Double)
        var period = Int64.min
        var jitter = (east: 0.0, north: 0.0)
        var last: (center: Coordinate, point: Coordinate)?
    }

    /// Radius of the reported circle: always at least the cell's half diagonal.
    public var haccMeters: Double { cellSizeMeters * 0.5 * 2.0.squareRoot() + jitterRadiusMeters }

    /// The period a time falls in; the reported point changes only when this does.
    public func periodIndex(t: Double) -> Int64 { Int64((t / periodSeconds).rounded(.down)) }

    /// The values to keep for `device`; computes its grid shift (one keyed hash).
    public func offsets(device: String) -> Offsets {
        let (row, column) = uniformPair(label: "grid", device: device, extra: "")
        return Offsets(device: device, shift: (row, column))
    }

    /// The reduced point for `device` at `coordinate` and time `t`.
    public func reduce(_ coordinate: Coordinate, device: String, t: Double) -> Coordinate {
        var offsets = offsets(device: device)
        return reduce(coordinate, t: t, offsets: &offsets)
    }

    /// The reduced point for the device of `offsets`; a new period costs one keyed hash.
    public func reduce(_ coordinate: Coordinate, t: Double, offsets: inout Offsets) -> Coordinate {
        let period = periodIndex(t: t)
        if period != offsets.period {
            let (u1, u2) = uniformPair(label: "period", device: offsets.device, extra: String(period))
            let radius = jitterRadiusMeters * u1.squareRoot()
            let angle = 2 * Double.pi * u2
            offsets.period = period
            offsets.jitter = (radius * sin(angle), radius * cos(angle))
            offsets.last = nil
        }
        let center = cellCenter(coordinate, shift: offsets.shift)
        if let last = offsets.last, last.center == center { return last.point }
        let point = LocalTangentPlane(origin: center).unproject(east: offsets.jitter.east, north: offsets.jitter.north)
        offsets.last = (center, point)
        return point
    }

    /// The centre of the device's secret grid cell that holds `coordinate`.
    public func cellCenter(_ coordinate: Coordinate, device: String) -> Coordinate {
        cellCenter(coordinate, shift: offsets(device: device).shift)
    }

    private func cellCenter(_ coordinate: Coordinate, shift: (row: Double, column: Double)) -> Coordinate {
        let rowHeightDegrees = cellSizeMeters / Self.metersPerDegreeLatitude
        let row = ((coordinate.lat - shift.row * rowHeightDegrees) / rowHeightDegrees).rounded(.down)
        let centerLat = min(89.9, max(-89.9, (row + 0.5 + shift.row) * rowHeightDegrees))
        let columnWidthDegrees = cellSizeMeters / (Self.metersPerDegreeLongitudeAtEquator * max(0.05, cos(centerLat * .pi / 180)))
        let column = ((coordinate.lon - shift.column * columnWidthDegrees) / columnWidthDegrees).rounded(.down)
        var centerLon = (column + 0.5 + shift.column) * columnWidthDegrees
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
        let code = mac.authenticationCode(for: message)
        func unit(_ offset: Int) -> Double {
            var value: UInt64 = 0
            for index in offset..<offset + 8 { value = value << 8 | UInt64(code[index]) }
            return Double(value >> 11) / Double(UInt64(1) << 53)
        }
        return (unit(0), unit(8))
    }
}

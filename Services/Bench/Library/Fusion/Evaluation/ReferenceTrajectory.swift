import Foundation
public import LocusGeo
import LocusFusion

/// The NovAtel SPAN reference of the Google Smartphone Decimeter Challenge (1 Hz, GPS-epoch
/// milliseconds), interpolated at any time inside it.
public struct ReferenceTrajectory: Sendable {
    /// Unix seconds and position, in time order.
    public var points: [(t: Double, coordinate: Coordinate)]

    /// GPS time runs ahead of UTC by the leap seconds since 1980: 18 s in 2020.
    public static let gpsToUnixOffsetSeconds = 315_964_800.0 - 18

    public init(contentsOf path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: ",").map(String.init),
              let timeColumn = header.firstIndex(of: "millisSinceGpsEpoch"),
              let latColumn = header.firstIndex(of: "latDeg"), let lonColumn = header.firstIndex(of: "lngDeg") else {
            throw CocoaError(.fileReadCorruptFile)
        }
        points = lines.dropFirst().compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count > max(timeColumn, latColumn, lonColumn), let millis = Double(fields[timeColumn]),
                  let lat = Double(fields[latColumn]), let lon = Double(fields[lonColumn]) else { return nil }
            return (millis / 1000 + Self.gpsToUnixOffsetSeconds, Coordinate(lat: lat, lon: lon))
        }.sorted { $0.t < $1.t }
    }

    /// The reference position at `t`, or nil outside the recorded span.
    public func position(at t: Double) -> Coordinate? {
        guard let first = points.first, let last = points.last, t >= first.t, t <= last.t else { return nil }
        var low = 0, high = points.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if points[middle].t <= t { low = middle } else { high = middle }
        }
        let a = points[low], b = points[high]
        let fraction = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
        return Coordinate(lat: a.coordinate.lat + fraction * (b.coordinate.lat - a.coordinate.lat),
                          lon: a.coordinate.lon + fraction * (b.coordinate.lon - a.coordinate.lon))
    }
}

import Foundation
public import LocusService
import LocusGeo

/// Turns `locus-provider sim` options into a `SimSource`.
public enum SimOptions {
    public static func makeSource(options: ParsedOptions, pacer: ReplayPacer, now: Double) throws(UsageError) -> SimSource {
        let mps = try ProviderOptions.positive(options, "--mps") ?? 1.4
        let points: [GPXPoint]
        var fileStart: Double?
        if let path = options.string("--file") {
            let document: GPXDocument
            do { document = try GPXParser.parse(contentsOf: path) } catch { throw UsageError("\(path): \(error.description)") }
            points = document.path
            fileStart = points.first?.time ?? document.time
        } else if let text = options.string("--waypoints") {
            points = try waypoints(text)
        } else {
            throw UsageError("sim needs --file GPX or --waypoints 'LAT,LON;LAT,LON;…'")
        }
        guard !points.isEmpty else { throw UsageError("sim: the route has no points") }
        let route = RoutePath(points: points, metersPerSecond: mps)
        var configuration = SimConfiguration(route: route, startTime: try options.double("--start") ?? fileStart ?? now.rounded(.down))
        if let seed = options.string("--seed") {
            guard let value = UInt64(seed) else { throw UsageError("--seed expects a non-negative whole number") }
            configuration.seed = value
        }
        configuration.hz = try ProviderOptions.positive(options, "--hz") ?? 1
        configuration.haccMeters = try ProviderOptions.positive(options, "--hacc") ?? 5
        configuration.biasSigmaMeters = try nonNegative(options, "--bias-sigma") ?? 0
        configuration.biasTauSeconds = try ProviderOptions.positive(options, "--bias-tau") ?? 60
        configuration.outlierRate = try nonNegative(options, "--outlier-rate") ?? 0
        guard configuration.outlierRate <= 1 else { throw UsageError("--outlier-rate must be in [0, 1]") }
        configuration.outlierMeters = try ProviderOptions.positive(options, "--outlier-meters") ?? 200
        configuration.outages = try options.strings("--outage").map(outage)
        configuration.coldStartSeconds = try nonNegative(options, "--cold-start") ?? 0
        configuration.coldHaccMeters = try ProviderOptions.positive(options, "--cold-hacc") ?? 300
        if let hz = try nonNegative(options, "--wifi-hz"), hz > 0 {
            configuration.wifi = .init(hz: hz, haccMeters: try ProviderOptions.positive(options, "--wifi-hacc") ?? 30)
        }
        if let hz = try nonNegative(options, "--cell-hz"), hz > 0 {
            configuration.cell = .init(hz: hz, haccMeters: try ProviderOptions.positive(options, "--cell-hacc") ?? 800)
        }
        configuration.durationSeconds = try ProviderOptions.positive(options, "--duration")
        configuration.loop = options.flag("--loop")
        configuration.gnssSourceName = options.string("--source") ?? "gps"
        return SimSource(configuration: configuration, pacer: pacer)
    }

    /// `LAT,LON;LAT,LON;…`
    public static func waypoints(_ text: String) throws(UsageError) -> [GPXPoint] {
        var points: [GPXPoint] = []
        for pair in text.split(separator: ";") {
            let parts = pair.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]), abs(lat) <= 90, abs(lon) <= 180 else {
                throw UsageError("--waypoints: '\(pair)' is not LAT,LON")
            }
            points.append(GPXPoint(lat: lat, lon: lon))
        }
        return points
    }

    /// `START+SECONDS`, both in seconds from the start of the run.
    static func outage(_ text: String) throws(UsageError) -> SimConfiguration.Outage {
        let parts = text.split(separator: "+")
        guard parts.count == 2, let start = Double(parts[0]), let duration = Double(parts[1]), start >= 0, duration > 0 else {
            throw UsageError("--outage expects START+SECONDS, got '\(text)'")
        }
        return .init(startSeconds: start, durationSeconds: duration)
    }

    static func nonNegative(_ options: ParsedOptions, _ name: String) throws(UsageError) -> Double? {
        guard let value = try options.double(name) else { return nil }
        guard value >= 0 else { throw UsageError("\(name) must not be negative") }
        return value
    }
}

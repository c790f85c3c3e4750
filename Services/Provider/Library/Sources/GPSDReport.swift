import Foundation
public import LocusProtocol

/// Reads one line of gpsd's JSON protocol (gpsd_json(5)) and keeps what a provider needs:
/// TPV reports with a 2D/3D fix become locations; TPV with mode 0/1 means "no fix".
///
/// Accuracy: gpsd's `epx`/`epy` (longitude/latitude error, metres) are taken as 95%
/// per-axis bounds (σ = e / 1.96) and turned into our 68% radius by
/// `NMEAAccuracyModel.radius68`; when only `eph` is present it is taken as a 95%
/// horizontal radius (σ = eph / 2.4477 for a circular Gaussian). gpsd documents their
/// certainty as unknown, so this is a convention, chosen to match its UERE model.
public enum GPSDReport: Equatable, Sendable {
    case fix(Location, t: Double)
    case noFix
    case untimed
    case other(String)

    public static func parse(line: String, device: String, source: String = "gnss") -> GPSDReport? {
        guard let data = line.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data), let report = object as? [String: Any],
              let kind = report["class"] as? String else { return nil }
        guard kind == "TPV" else { return .other(kind) }
        func number(_ key: String) -> Double? {
            guard let value = report[key] as? NSNumber else { return nil }
            let double = value.doubleValue
            return double.isFinite ? double : nil
        }
        let mode = (report["mode"] as? NSNumber)?.intValue ?? 0
        guard mode >= 2, let lat = number("lat"), let lon = number("lon"), abs(lat) <= 90, abs(lon) <= 180 else { return .noFix }
        guard let timeText = report["time"] as? String, let t = ISO8601Time.unixSeconds(timeText) else { return .untimed }
        let location = Location(
            device: device, source: source, lat: lat, lon: lon, hacc: hacc(epx: number("epx"), epy: number("epy"), eph: number("eph")),
            alt: mode >= 3 ? number("altHAE") ?? number("alt") : nil,
            vacc: number("epv").flatMap { $0 > 0 ? $0 / 1.96 : nil },
            speed: number("speed").flatMap { $0 >= 0 ? $0 : nil }, course: number("track").flatMap(FixMapping.normalizedCourse),
            mode: mode >= 3 ? "3d" : "2d")
        return .fix(location, t: t)
    }

    /// Our 68% radius from gpsd's error estimates (see the type's comment); 50 m when gpsd gives none.
    public static func hacc(epx: Double?, epy: Double?, eph: Double?) -> Double {
        if let epx, let epy, epx > 0, epy > 0 {
            return NMEAAccuracyModel.radius68(sigmaLatMeters: epy / 1.96, sigmaLonMeters: epx / 1.96)
        }
        if let eph, eph > 0 { return NMEAAccuracyModel.radius68PerSigma * eph / 2.4477 }
        return NMEAAccuracyModel.defaultRadiusMeters
    }
}

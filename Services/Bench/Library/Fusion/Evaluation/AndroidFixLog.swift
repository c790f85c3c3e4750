import Foundation
import LocusFusion

/// The `Fix,` lines of an Android GnssLogger file (`Fix,Provider,LatitudeDegrees,
/// LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis,…`):
/// real position reports of the phone's providers, GPS, NLP (network) and FLP (fused).
public struct AndroidFixLog: Sendable {
    public struct Fix: Sendable, Equatable {
        public var provider: String
        public var lat: Double
        public var lon: Double
        /// Nil when the field is missing or damaged (real logs hold such lines).
        public var alt: Double?
        public var accuracyMeters: Double
        public var unixSeconds: Double
    }

    public var fixes: [Fix]
    /// `Fix` lines whose position, accuracy or time could not be read.
    public var unreadable: Int

    public init(contentsOf path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        fixes = []
        unreadable = 0
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("Fix,") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 9, let lat = Double(fields[2]), let lon = Double(fields[3]),
                  let accuracy = Double(fields[6]), let millis = Double(fields[8]) else {
                unreadable += 1
                continue
            }
            fixes.append(Fix(provider: fields[1], lat: lat, lon: lon, alt: Double(fields[4]), accuracyMeters: accuracy,
                             unixSeconds: millis / 1000))
        }
    }
}

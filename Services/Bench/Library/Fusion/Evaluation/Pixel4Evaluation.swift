import Foundation
import LocusService
import LocusGeo
import LocusProtocol
public import LocusFusion

/// The real-drive comparison: the phone's own GPS and network fixes go through
/// `FusionLogic`, and our fused errors are set beside those of Android's fused provider
/// (FLP) on the same drive, both against the reference trajectory.
public enum Pixel4Evaluation {
    public struct Result: Sendable {
        public var inputFixes: Int
        public var unreadableLines: Int
        public var ours: ErrorStatistics
        public var android: ErrorStatistics
        public var rawGPS: ErrorStatistics
    }

    /// Provider names in the log and the Locus source each becomes.
    public static let sources = ["GPS": "gps", "NLP": "wifi"]

    public static func run(log: AndroidFixLog, truth: ReferenceTrajectory, configuration: FusionConfiguration = FusionConfiguration()) -> Result {
        var logic = FusionLogic(configuration: configuration)
        var ours: ([Double], [Double]) = ([], [])
        var android: ([Double], [Double]) = ([], [])
        var gps: ([Double], [Double]) = ([], [])
        var inputs = 0
        for (index, fix) in log.fixes.enumerated() {
            let point = Coordinate(lat: fix.lat, lon: fix.lon)
            if fix.provider == "FLP" {
                if let reference = truth.position(at: fix.unixSeconds) {
                    android.0.append(FastDistance.meters(point, reference))
                    android.1.append(fix.accuracyMeters)
                }
                continue
            }
            guard let source = sources[fix.provider] else { continue }
            if source == "gps", let reference = truth.position(at: fix.unixSeconds) {
                gps.0.append(FastDistance.meters(point, reference))
                gps.1.append(fix.accuracyMeters)
            }
            inputs += 1
            let location = Location(device: "pixel4", source: source, lat: fix.lat, lon: fix.lon, hacc: fix.accuracyMeters, alt: fix.alt)
            let message = Message(body: .location(location), id: "pixel4-\(index)", t: fix.unixSeconds, src: "evaluation/pixel4")
            for out in logic.receive(message, topic: Topic.locationRaw("pixel4"), now: fix.unixSeconds)
            where out.topic == Topic.locationFused("pixel4") {
                guard case .location(let fused) = out.body, let reference = truth.position(at: out.t) else { continue }
                ours.0.append(FastDistance.meters(Coordinate(lat: fused.lat, lon: fused.lon), reference))
                ours.1.append(fused.hacc)
            }
        }
        return Result(inputFixes: inputs, unreadableLines: log.unreadable,
                      ours: ErrorStatistics(errors: ours.0, radii: ours.1),
                      android: ErrorStatistics(errors: android.0, radii: android.1),
                      rawGPS: ErrorStatistics(errors: gps.0, radii: gps.1))
    }
}

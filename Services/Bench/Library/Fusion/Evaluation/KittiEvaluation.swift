import Foundation
import LocusService
public import LocusGeo
import LocusProtocol
public import LocusFusion

/// The KITTI evaluation of the issue: the clean drive plus seeded noise goes through
/// `FusionLogic` as messages, and the fused stream is compared with the truth.
public enum KittiEvaluation {
    public struct Row: Sendable {
        public var scenario: NoiseModel.Scenario
        public var raw: ErrorStatistics
        public var fused: ErrorStatistics
        /// RMSE fused / RMSE raw.
        public var ratio: Double { fused.rmse / raw.rmse }
    }

    /// Where the local frame is placed (Karlsruhe, where KITTI was recorded); any point works.
    public static let anchor = Coordinate(lat: 49.011, lon: 8.4167)
    /// Added to the file's times so fix times look like epoch seconds.
    public static let epochOffset = 1_300_000_000.0

    /// The mean of `run` over several seeds: one seed's figures move by a few hundredths.
    public static func averaged(track: KittiTrack, scenario: NoiseModel.Scenario, seeds: [UInt64], noise: NoiseModel = NoiseModel(),
                                configuration: FusionConfiguration = FusionConfiguration()) -> (ratio: Double, coverage: Double, rows: [Row]) {
        let rows = seeds.map { run(track: track, scenario: scenario, seed: $0, noise: noise, configuration: configuration) }
        let count = Double(rows.count)
        return (rows.reduce(0) { $0 + $1.ratio } / count, rows.reduce(0) { $0 + $1.fused.coverage } / count, rows)
    }

    /// The seeds the test and `locus bench fusion` report.
    public static let standardSeeds: [UInt64] = Array(1...8)

    public static func run(track: KittiTrack, scenario: NoiseModel.Scenario, seed: UInt64, noise: NoiseModel = NoiseModel(),
                           configuration: FusionConfiguration = FusionConfiguration()) -> Row {
        let plane = LocalTangentPlane(origin: anchor)
        let noisy = noise.corrupt(track.samples, scenario: scenario, seed: seed)
        var logic = FusionLogic(configuration: configuration)
        var rawErrors: [Double] = [], rawRadii: [Double] = []
        var fusedErrors: [Double] = [], fusedRadii: [Double] = []
        var truthByTime: [Double: KittiTrack.Sample] = [:]
        for (index, sample) in track.samples.enumerated() {
            let fix = noisy[index]
            let t = epochOffset + sample.t
            truthByTime[t] = sample
            rawErrors.append(hypot(fix.east - sample.east, fix.north - sample.north))
            rawRadii.append(fix.hacc)
            let coordinate = plane.unproject(east: fix.east, north: fix.north)
            let location = Location(device: "kitti", source: "gps", lat: coordinate.lat, lon: coordinate.lon, hacc: fix.hacc,
                                    speed: fix.speed, speedAcc: fix.speedAcc, course: fix.course, mode: "3d")
            let message = Message(body: .location(location), id: "kitti-\(index)", t: t, src: "evaluation/kitti")
            for out in logic.receive(message, topic: Topic.locationRaw("kitti"), now: t)
            where out.topic == Topic.locationFused("kitti") {
                guard case .location(let fused) = out.body, let truth = truthByTime[out.t] else { continue }
                let position = plane.project(Coordinate(lat: fused.lat, lon: fused.lon))
                fusedErrors.append(hypot(position.east - truth.east, position.north - truth.north))
                fusedRadii.append(fused.hacc)
            }
        }
        return Row(scenario: scenario, raw: ErrorStatistics(errors: rawErrors, radii: rawRadii),
                   fused: ErrorStatistics(errors: fusedErrors, radii: fusedRadii))
    }
}

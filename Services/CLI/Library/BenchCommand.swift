import Foundation
import LocusBus

/// `locus bench`: every benchmark prints its figures beside a peer measured in the same run.
enum BenchCommand {
    static let usage = """
    Usage: locus bench WHAT [options]

      codec   message codec vs Foundation's JSONEncoder/JSONDecoder
      bus     locus-bus vs a raw libzmq XSUB/XPUB proxy
      nmea    NMEA decoder vs gpsd's gpsdecode on the same bytes
      fusion  fused accuracy on KITTI (seeded noise) and a Pixel 4 drive vs Android's FLP
      geofence  region kernel vs shapely STRtree; fleet throughput and fix→event latency on the bus
      all     every benchmark above, one after another

    Use a release build (`swift build -c release`) for meaningful figures.
    """

    static func run(_ arguments: [String]) -> Int32 {
        guard let what = arguments.first else {
            FileHandle.standardError.write(Data(usage.utf8))
            return ServiceProgram.exitUsage
        }
        let rest = Array(arguments.dropFirst())
        switch what {
        case "all":
            var status: Int32 = 0
            for bench in benches {
                print("\n## \(bench.name)\n")
                status = max(status, bench.run([]))
            }
            return status
        case "--help", "help": print(usage, terminator: ""); return 0
        default:
            if let bench = benches.first(where: { $0.name == what }) { return bench.run(rest) }
            FileHandle.standardError.write(Data("locus bench: unknown benchmark '\(what)'\n\n\(usage)".utf8))
            return ServiceProgram.exitUsage
        }
    }

    static let benches: [(name: String, run: @Sendable ([String]) -> Int32)] = [
        ("codec", { CodecBench.run(arguments: $0) }),
        ("bus", { BusBench.run($0) }),
        ("nmea", { NMEABench.run(arguments: $0) }),
        ("fusion", { FusionBench.run($0) }),
        ("geofence", { GeofenceBench.run($0) }),
    ]
}

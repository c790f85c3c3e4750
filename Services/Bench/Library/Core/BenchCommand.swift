import Foundation
import Glibc
import LocusBus
import LocusService

/// `locus bench`: every benchmark prints its figures beside a peer measured in the same run;
/// `locus bench all` gathers their rows into one table.
public enum BenchCommand {
    static let usage = """
    Usage: locus bench WHAT [options]

      codec      message codec vs Foundation's JSONEncoder/JSONDecoder
      bus        locus-bus vs a raw libzmq XSUB/XPUB proxy (--curve: NULL and CURVE on tcp; --isolation: device scopes)
      nmea       NMEA decoder vs gpsd's gpsdecode on the same bytes
      fusion     fused accuracy on KITTI (seeded noise) and a Pixel 4 drive vs Android's FLP
      geofence   region kernel vs shapely STRtree; fleet throughput and fix→event latency on the bus
      fleet      the geofence fleet on the ZeroMQ bus and on NATS (1 and 3 partitions) beside bare cnats (not part of `all`)
      pipeline   fix→notification latency through bus, fusion, geofence and notifier at 1 k fixes/s
      resources  RSS and CPU of every service at 1 Hz input, beside gpsd
      network    Wi-Fi/cell positioning in a simulated city (error, hacc coverage, learning); cell import rate
      geodesic   exact geodesic (Karney) calls/s beside FastDistance (not part of `all`)
      all        every benchmark above with the counts below, then one markdown table on stdout
                 (each bench's own details go to stderr)

    Counts used by `all`: \(allArguments.map { "\($0.name) \($0.arguments.joined(separator: " "))" }.joined(separator: "; ")).
    Use a release build (`swift build -c release`) for meaningful figures.
    """

    public static func run(_ arguments: [String]) -> Int32 {
        guard let what = arguments.first else {
            FileHandle.standardError.write(Data(usage.utf8))
            return ServiceProgram.exitUsage
        }
        let rest = Array(arguments.dropFirst())
        switch what {
        case "all": return runAll()
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
        ("fleet", { FleetTierBench.run($0) }),
        ("pipeline", { PipelineBench.run($0) }),
        ("resources", { ResourceBench.run($0) }),
        ("geodesic", { GeodesicBench.run($0) }),
        ("network", { NetworkBench.run($0) }),
    ]

    /// What `all` passes each bench: counts that keep the whole run near five minutes on
    /// two cores. The geofence's own bus run is skipped: the pipeline row covers latency.
    static let allArguments: [(name: String, arguments: [String])] = [
        ("codec", ["--count", "100000"]),
        ("bus", ["--count", "200000", "--rounds", "2"]),
        ("bus", ["--curve", "--count", "100000", "--rounds", "1"]),
        ("bus", ["--isolation", "--count", "100000", "--rounds", "2"]),
        ("nmea", ["--sentences", "500000"]),
        ("fusion", []),
        ("geofence", ["--points", "500000", "--skip-bus"]),
        ("pipeline", ["--seconds", "20"]),
        ("pipeline", ["--fleet", "--stdio-rounds", "3", "--fixes", "300000"]),
        ("resources", ["--seconds", "20"]),
        ("network", ["--seeds", "3"]),  // as docs/benchmarks.md: with 2 seeds the ~300 moved APs put the 90 % goal within sampling noise
    ]

    /// Runs every bench with its details sent to stderr, then prints one table on stdout.
    static func runAll() -> Int32 {
        var status: Int32 = 0
        _ = BenchRecorder.shared.take()
        let started = Date().timeIntervalSince1970
        for (name, arguments) in allArguments {
            guard let bench = benches.first(where: { $0.name == name }) else { continue }
            let benchStart = Date().timeIntervalSince1970
            FileHandle.standardError.write(Data("\n## \(name) \(arguments.joined(separator: " "))\n\n".utf8))
            let code = withStandardOutputOnStandardError { bench.run(arguments) }
            if code != 0 { FileHandle.standardError.write(Data("locus bench \(name): exit status \(code)\n".utf8)) }
            status = max(status, code)
            FileHandle.standardError.write(Data(String(format: "(%@: %.0f s)\n", name, Date().timeIntervalSince1970 - benchStart).utf8))
        }
        let rows = BenchRecorder.shared.take()
        print(BenchTable.render(rows))
        var closing = String(format: "\nall benchmarks: %.0f s", Date().timeIntervalSince1970 - started)
        if let worst = BenchTable.worst(rows), let shortfall = worst.shortfall {
            closing += "; furthest from its goal: \(worst.name) (\(String(format: "%.2f", shortfall))× the goal)"
        }
        FileHandle.standardError.write(Data((closing + "\n").utf8))
        return status
    }

    /// Runs `body` with file descriptor 1 pointing at stderr, so a bench's own tables stay
    /// visible without mixing into the one table `all` prints.
    static func withStandardOutputOnStandardError(_ body: () -> Int32) -> Int32 {
        fflush(nil)
        let saved = dup(STDOUT_FILENO)
        guard saved >= 0 else { return body() }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        defer {
            fflush(nil)
            dup2(saved, STDOUT_FILENO)
            close(saved)
        }
        return body()
    }
}

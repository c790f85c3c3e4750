import Foundation
import LocusNATS
import LocusProtocol
import LocusService

/// `locus bench fleet`: the geofence fleet in one run through the ZeroMQ bus, through a
/// three-node NATS cluster (JetStream, replicas 3) with one and with three geofence
/// partitions for each fix delivery (`durable`: fixes stored R3; `plain`: plain NATS), and
/// bare cnats on the same kind of cluster as the peers (plain publish → subscribe,
/// JetStream R1 and R3): fixes/s, CPU µs per fix in every process, and fix→event latency
/// (docs/benchmarks.md, "Fleet tier").
enum FleetTierBench {
    static let spec = CommandLineSpec(
        program: "locus bench fleet",
        summary: "the geofence fleet through the ZeroMQ bus and through NATS (1 and 3 partitions, durable and plain fixes), beside bare cnats",
        usage: "locus bench fleet [--circles N] [--devices N] [--fixes N] [--latency-samples N] [--fix-delivery durable,plain]",
        options: [
            OptionSpec("--circles", value: "N", help: "circles (radius 100–1000 m) in the square", default: "10000"),
            OptionSpec("--devices", value: "N", help: "devices of the fleet", default: "10000"),
            OptionSpec("--fixes", value: "N", help: "fixes in each run", default: "300000"),
            OptionSpec("--latency-samples", value: "N", help: "fix→event round trips measured in each run", default: "200"),
            OptionSpec("--side-km", value: "KM", help: "side of the square regions and devices fill", default: "50"),
            OptionSpec("--seed", value: "N", help: "random seed", default: "42"),
            OptionSpec("--fix-delivery", value: "LIST", help: "the NATS fix deliveries to run (comma-separated)", default: "durable,plain"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Needs nats-server and scripts/nats-cluster.sh (run from the repository's build), and locus-bus/locus-geofence beside locus.")

    /// Goals on two cores: Locus over NATS at least this share of the bare cnats figure, and this many fixes/s with three partitions.
    static let goalShareOfPeer = 0.6
    static let goalFixesPerSecond = 100_000.0

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let circles, devices, fixes, samples: Int
        let seed: UInt64
        let side: Double
        let deliveries: [FixDelivery]
        do throws(UsageError) {
            circles = try options.int("--circles") ?? 10_000
            devices = try options.int("--devices") ?? 10_000
            fixes = try options.int("--fixes") ?? 300_000
            samples = try options.int("--latency-samples") ?? 200
            seed = UInt64(try options.int("--seed") ?? 42)
            side = (try options.double("--side-km") ?? 50) * 1_000
            let names = (options.string("--fix-delivery") ?? "durable,plain").split(separator: ",").map(String.init)
            deliveries = names.compactMap(FixDelivery.init(option:))
            guard deliveries.count == names.count, !deliveries.isEmpty else {
                throw UsageError("--fix-delivery takes durable, plain or both, comma-separated")
            }
            guard circles > 0, devices > 0, fixes >= devices, samples >= 0, side > 0 else {
                throw UsageError("need positive --circles, --devices, --side-km, --fixes ≥ --devices, --latency-samples ≥ 0")
            }
        } catch { ServiceProgram.usageFailure(spec.program, error.message) }
        let scene = GeofenceFleetScene(circles: circles, devices: devices, fixes: fixes, seed: seed, sideMeters: side)
        do {
            FileHandle.standardError.write(Data("locus bench fleet: ZeroMQ bus…\n".utf8))
            let zeromq = try GeofenceBusRun(circles: circles, devices: devices, fixes: fixes, latencySamples: samples, seed: seed,
                                            sideMeters: side).measureOnTheBus()
            var runs: [(delivery: FixDelivery, one: NATSFleetRun.Figures, three: NATSFleetRun.Figures)] = []
            for delivery in deliveries {
                FileHandle.standardError.write(Data("locus bench fleet: NATS, fixes \(delivery.rawValue), 1 partition…\n".utf8))
                let one = try NATSFleetRun(scene: scene, partitions: 1, latencySamples: samples, delivery: delivery).measure()
                FileHandle.standardError.write(Data("locus bench fleet: NATS, fixes \(delivery.rawValue), 3 partitions…\n".utf8))
                let three = try NATSFleetRun(scene: scene, partitions: 3, latencySamples: samples, delivery: delivery).measure()
                runs.append((delivery, one, three))
            }
            FileHandle.standardError.write(Data("locus bench fleet: bare cnats…\n".utf8))
            var ids = MessageIDGenerator()
            let bodies = scene.fleet("d", ids: &ids).map { MessageCodec.encode($0.message) }
            let cluster = try NATSBenchCluster(tag: "peer")
            defer { cluster.down() }
            let peer = try BareNATSPeer.measure(endpoint: cluster.endpoint, bodies: bodies)
            report(scene: scene, zeromq: zeromq, runs: runs, peer: peer)
            return 0
        } catch {
            FileHandle.standardError.write(Data("locus bench fleet: \(error)\n".utf8))
            return 1
        }
    }

    private static func report(scene: GeofenceFleetScene, zeromq: GeofenceBusRun.Figures,
                               runs: [(delivery: FixDelivery, one: NATSFleetRun.Figures, three: NATSFleetRun.Figures)], peer: BareNATSPeer.Figures) {
        func rate(_ value: Double) -> String { String(Int(value.rounded())) }
        func latency(_ samples: [Double]) -> String {
            guard !samples.isEmpty else { return "(no samples)" }
            let (p50, p99) = GeofenceBusRun.percentiles(samples)
            return String(format: "%.2f / %.2f ms", p50, p99)
        }
        func cpu(_ processes: [(String, Double)]) -> String {
            processes.map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: ", ")
        }
        func share(_ ours: Double, _ theirs: Double) -> String { String(format: "%.0f %%", ours / max(theirs, 1) * 100) }
        /// The bare peer that does what a delivery asks of the servers.
        func peerOf(_ delivery: FixDelivery) -> (name: String, rate: Double) {
            delivery == .plain ? ("bare plain", peer.plainPerSecond) : ("bare JetStream R3", peer.jetStreamPerSecond)
        }
        print("| locus bench fleet: \(scene.circles.count) regions, \(scene.devices) devices, \(scene.fixes) fixes; NATS: 3 nodes | fixes/s | ÷ matching bare peer | CPU µs per fix, per process | fix→event p50 / p99 |")
        print("|---|---:|---:|---|---:|")
        print("| ZeroMQ: locus-bus + locus-geofence (SQLite) | \(rate(zeromq.fixesPerSecond)) | | "
              + "\(cpu(zeromq.cpuMicrosecondsPerFix.map { ($0.name, $0.loaded) })) | \(latency(zeromq.latencies)) |")
        for run in runs {
            let (name, peerRate) = peerOf(run.delivery)
            for (partitions, figures) in [(1, run.one), (3, run.three)] {
                let sending = run.delivery == .plain ? "sent" : "stored"
                let lost = figures.lost > 0 ? ", \(figures.lost) lost" : ""
                print("| NATS, fixes \(run.delivery.rawValue), \(partitions) geofence partition\(partitions == 1 ? "" : "s") (state in the key-value bucket) | "
                      + "\(rate(figures.fixesPerSecond)) (\(sending) at \(rate(figures.storedPerSecond))\(lost)) | \(share(figures.fixesPerSecond, peerRate)) of \(name) | "
                      + "\(cpu(figures.cpuMicrosecondsPerFix)) | \(latency(figures.latencies)) |")
            }
        }
        print("| bare cnats publish → subscribe (plain NATS, same bodies) | \(rate(peer.plainPerSecond))"
              + (peer.plainLost > 0 ? " (\(peer.plainLost) lost)" : "") + " | | | |")
        print("| bare cnats JetStream R1 publish → pull consumer (acknowledged per fetch) | \(rate(peer.jetStreamR1PerSecond)) | | | |")
        print("| bare cnats JetStream R3 publish → pull consumer (acknowledged per fetch) | \(rate(peer.jetStreamPerSecond)) | | | |")
        print("| events (ZeroMQ / " + runs.map { "\($0.delivery.rawValue) 1 / \($0.delivery.rawValue) 3" }.joined(separator: " / ") + ") | "
              + "\(zeromq.events) / " + runs.map { "\($0.one.events) / \($0.three.events)" }.joined(separator: " / ") + " | | | |")
        for run in runs {
            let (name, peerRate) = peerOf(run.delivery)
            print("| goals, fixes \(run.delivery.rawValue), 3 partitions: ≥ \(Int(goalShareOfPeer * 100)) % of \(name), ≥ \(Int(goalFixesPerSecond)) fixes/s | "
                  + "\(share(run.three.fixesPerSecond, peerRate)), \(rate(run.three.fixesPerSecond)) | | | |")
            BenchRecorder.shared.record(BenchRow(name: "fleet over NATS, fixes \(run.delivery.rawValue), 3 geofence partitions", ours: run.three.fixesPerSecond,
                                                 peer: peerRate, peerName: "\(name) cnats", unit: "fixes/s", goal: .ratioAtLeast(goalShareOfPeer)))
            BenchRecorder.shared.record(BenchRow(name: "fleet over NATS, fixes \(run.delivery.rawValue), 3 partitions, absolute", ours: run.three.fixesPerSecond,
                                                 peerName: "—", unit: "fixes/s", goal: .atLeast(goalFixesPerSecond)))
        }
    }
}

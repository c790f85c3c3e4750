import Foundation
import LocusBus
import LocusService
import LocusGeo
import LocusProtocol

/// `locus bench geofence`: the containment kernel beside shapely's STRtree on the same
/// scene, then locus-geofence itself on a real bus: fixes/s for a fleet and the time from
/// a deciding fix to its event.
enum GeofenceBench {
    static let spec = CommandLineSpec(
        program: "locus bench geofence",
        summary: "geofence kernel vs shapely STRtree, stateful throughput and latency on the bus",
        usage: "locus bench geofence [--circles N] [--points N] [--devices N] [--fixes N] [--latency-samples N]",
        options: [
            OptionSpec("--circles", value: "N", help: "circles (radius 100–1000 m) in a 50 km square", default: "10000"),
            OptionSpec("--points", value: "N", help: "random points for the kernel", default: "1000000"),
            OptionSpec("--devices", value: "N", help: "devices for the bus run", default: "10000"),
            OptionSpec("--fixes", value: "N", help: "fixes published in the bus run", default: "500000"),
            OptionSpec("--latency-samples", value: "N", help: "fix→event round trips measured", default: "1000"),
            OptionSpec("--side-km", value: "KM", help: "side of the square the bus run's regions and devices fill", default: "50"),
            OptionSpec("--seed", value: "N", help: "random seed", default: "42"),
            OptionSpec("--skip-bus", help: "only the kernel comparison"),
            OptionSpec("--polygons", value: "FILE", help: "polygons from a GeoJSON file instead (see --polygons FILE --help)"),
            OptionSpec("--generate", value: "KIND", help: "with --polygons: first write a seeded scene to FILE (world or city)"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Needs python3 with shapely for the peer, and locus-bus/locus-geofence beside locus for the bus run.")

    static func run(_ arguments: [String]) -> Int32 {
        // Polygons from a file are a bench of their own (PolygonBench).
        if arguments.contains("--polygons") { return PolygonBench.run(arguments) }
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let circles, points, devices, fixes, samples: Int
        let seed: UInt64
        let sideKilometres: Double
        do throws(UsageError) {
            sideKilometres = try options.double("--side-km") ?? 50
            guard sideKilometres > 0, sideKilometres <= 2_000 else { throw UsageError("--side-km must be in (0, 2000]") }
            circles = try options.int("--circles") ?? 10_000
            points = try options.int("--points") ?? 1_000_000
            devices = try options.int("--devices") ?? 10_000
            fixes = try options.int("--fixes") ?? 500_000
            samples = try options.int("--latency-samples") ?? 1_000
            seed = UInt64(try options.int("--seed") ?? 42)
        } catch { ServiceProgram.usageFailure("locus bench geofence", error.message) }

        print("| geofence kernel (\(circles) circles r 100–1000 m in 50 km, \(points) points) | points/s/core | hits |")
        print("|---|---:|---:|")
        let measured = GeofenceKernelBench.measure(circles: circles, points: points, seed: seed)
        let ours = (pointsPerSecond: measured.pointsPerCPUSecond, hits: measured.hits)
        print("| LocusGeo SpatialIndex + exact geodesic Circle (thread CPU time) | \(Int(ours.pointsPerSecond)) | \(ours.hits) |")
        print("| the same run in wall time (includes waiting for a core on a busy machine) | \(Int(measured.pointsPerWallSecond)) | |")
        let peer = ShapelyPeer.run(circles: circles, points: points, seed: seed)
        BenchRecorder.shared.record(BenchRow(name: "geofence kernel, \(circles) circles", ours: ours.pointsPerSecond, peer: peer?.pointsPerSecond,
                                             peerName: peer.map { "shapely \($0.version) STRtree" } ?? "shapely (not installed)",
                                             unit: "points/s/core", goal: .atLeast(GeofenceBenchCore.targetPointsPerSecond)))
        if let peer {
            print("| shapely \(peer.version) STRtree query(predicate=\"within\"), 64-gon buffers (planar) | \(Int(peer.pointsPerSecond)) | \(peer.hits) |")
            print("| ratio | \(String(format: "%.1f×", ours.pointsPerSecond / max(peer.pointsPerSecond, 1))) | goal ≥ 2 M points/s/core |")
        } else {
            print("| shapely STRtree | (python3 with shapely not available) | |")
        }
        print("")
        let scene = GeofenceFleetScene(circles: circles, devices: devices, fixes: fixes, seed: seed, sideMeters: sideKilometres * 1_000)
        do {
            let run = GeofenceLogicRun(scene: scene)
            let logic = try run.run()
            let full = try run.run(quietZones: false)
            print("| GeofenceLogic in this process (\(circles) regions, \(devices) devices, \(fixes) decoded fixes, SQLite file) | value |")
            print("|---|---:|")
            print("| CPU µs per fix (index, hysteresis, events, one transaction per 16 384 fixes) | \(String(format: "%.2f", logic.cpuMicrosecondsPerFix)) |")
            print("| of which the SQLite commits, CPU µs per fix | \(String(format: "%.2f", logic.commitMicrosecondsPerFix)) |")
            print("| fixes per CPU second | \(Int(1e6 / logic.cpuMicrosecondsPerFix)) |")
            print("| fixes taken in their device's quiet zone (no per-region work) | \(String(format: "%.1f %%", logic.quietShare * 100)) |")
            print("| the same with quiet zones off: CPU µs per fix | \(String(format: "%.2f", full.cpuMicrosecondsPerFix)) |")
            print("| events (quiet zones off: the same count expected) | \(logic.events) (\(full.events)) |")
        } catch {
            FileHandle.standardError.write(Data("locus bench geofence: in-process run failed: \(error)\n".utf8))
            return 1
        }
        if options.flag("--skip-bus") { return 0 }
        print("")
        return GeofenceBusRun(circles: circles, devices: devices, fixes: fixes, latencySamples: samples, seed: seed,
                              sideMeters: sideKilometres * 1_000).run()
    }
}

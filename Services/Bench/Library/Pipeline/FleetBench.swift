import Foundation
import LocusBus
import LocusService
import LocusGeo
import LocusProtocol

/// `locus bench pipeline --fleet`: a fleet's raw fixes through the stack, first through each
/// service's `--stdio` on the same fixes (fusion beside the geofence it feeds), then through
/// every service as a process on the bus beside the bare bus in the same run.
enum FleetBench {
    static func run(_ options: ParsedOptions) -> Int32 {
        let devices, regions, fixes, stdioFixes, stdioRounds: Int
        let debounce: Double
        do throws(UsageError) {
            devices = try options.int("--devices") ?? 10_000
            regions = try options.int("--regions") ?? 10_000
            fixes = try options.int("--fixes") ?? 1_000_000
            stdioFixes = try options.int("--stdio-fixes") ?? 200_000
            stdioRounds = try options.int("--stdio-rounds") ?? 5
            debounce = try options.double("--debounce") ?? 2
            guard devices > 0, regions > 0, fixes > 0, stdioFixes > 0, stdioRounds >= 0, debounce >= 0 else {
                throw UsageError("--devices, --regions, --fixes and --stdio-fixes must be positive")
            }
        } catch { ServiceProgram.usageFailure("locus bench pipeline", error.message) }
        let sideMeters = GeofenceKernelBench.sceneSideMeters
        let seed: UInt64 = 42
        do {
            if stdioRounds > 0 {
                let directory = NSTemporaryDirectory() + "locus-bench-fleet-stdio-\(getpid())"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let scene = GeofenceFleetScene(circles: regions, devices: devices, fixes: stdioFixes, seed: seed, sideMeters: sideMeters)
                let result = try FleetStdioBench(scene: scene, rounds: stdioRounds, directory: directory, binaries: ServiceProgram.ownDirectory).run()
                print(FleetStdioBench.report(result, scene: scene))
                print("")
                BenchRecorder.shared.record(BenchRow(
                    name: "fusion in text mode, \(devices) devices (CPU)", ours: result.fusion.cpuMedian, peer: result.geofence.cpuMedian,
                    peerName: "geofence --stdio, same fixes, \(regions) regions, --db", unit: "fixes/s", goal: .ratioAtLeast(0.8)))
                BenchRecorder.shared.record(BenchRow(
                    name: "fusion in text mode, \(devices) devices (CPU), beside no regions", ours: result.fusion.cpuMedian,
                    peer: result.geofenceBare.cpuMedian, peerName: "geofence --stdio, same fixes, no regions", unit: "fixes/s", goal: .none))
                BenchRecorder.shared.record(BenchRow(
                    name: "fusion in text mode, fixes/s, \(devices) devices (wall)", ours: result.fusion.wallMedian, peer: result.geofence.wallMedian,
                    peerName: "geofence --stdio, same fixes, \(regions) regions, --db", unit: "fixes/s", goal: .atLeast(200_000)))
            }
            guard !options.flag("--skip-bus") else { return 0 }
            let scene = GeofenceFleetScene(circles: regions, devices: devices, fixes: fixes, seed: seed, sideMeters: sideMeters)
            let result = try FleetBusRun(scene: scene, debounceSeconds: debounce).run()
            print(FleetBusRun.report(result, scene: scene))
            BenchRecorder.shared.record(BenchRow(
                name: "fleet raw→fusion→geofence→notifier, \(devices) devices × \(regions) regions",
                ours: Double(fixes) / result.seconds, peer: Double(fixes) / result.floorSeconds,
                peerName: "the same fixes through locus-bus alone", unit: "fixes/s", goal: .atLeast(100_000)))
            guard result.duplicates == 0, result.missing == 0, result.delivered == result.events else {
                FileHandle.standardError.write(Data("locus bench pipeline: not every event was notified exactly once\n".utf8))
                return 1
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("locus bench pipeline --fleet: \(error)\n".utf8))
            return 1
        }
    }
}

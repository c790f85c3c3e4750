import Foundation
import LocusBus
import LocusService
import LocusGeo
import LocusGeofence
import LocusProtocol

/// The geofence's own work per fix, without the bus and the codec: the fleet scene's fixes,
/// already decoded, fed to `GeofenceLogic` on this thread with a real SQLite file and one
/// transaction per 16 384 messages, as the service runs them. Timed in this thread's CPU
/// time, so what else the machine runs moves it less than a wall-clock rate.
struct GeofenceLogicRun {
    let scene: GeofenceFleetScene

    struct Result {
        var cpuMicrosecondsPerFix: Double
        /// The part spent in the per-batch commits.
        var commitMicrosecondsPerFix: Double
        var events: Int
        /// Share of the fixes taken in their device's quiet zone (no per-region work).
        var quietShare: Double
    }

    /// `quietZones` false evaluates every fix in full, for the same run's comparison.
    func run(quietZones: Bool = true) throws -> Result {
        let directory = NSTemporaryDirectory() + "locus-bench-geofence-logic-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = GeofenceConfiguration()
        configuration.regionsPerOwner = max(scene.circles.count, configuration.regionsPerOwner)
        configuration.defaultAuthorization = .always
        configuration.quietZones = quietZones
        var logic = try GeofenceLogic(configuration: configuration, persistence: GeofenceDatabase(path: directory + "/geofence.db"))
        logic.commitsOnFlush = true
        var ids = MessageIDGenerator()
        for add in scene.regionAdds {
            _ = logic.receive(Message(body: .regionAdd(add), id: ids.next(), t: 0, src: "bench"), topic: Topic.regionCmd, now: 0)
        }
        _ = logic.flush(now: 0)
        let fleet = scene.fleet("d", ids: &ids)
        var events = 0
        let batch = 16_384
        var committing = 0.0
        func commit() {
            let before = GeofenceKernelBench.threadCPUSeconds()
            _ = logic.flush(now: 0)
            committing += GeofenceKernelBench.threadCPUSeconds() - before
        }
        let start = GeofenceKernelBench.threadCPUSeconds()
        for (number, fix) in fleet.enumerated() {
            events += logic.receive(fix.message, topic: fix.topic, now: 0).count
            if number % batch == batch - 1 { commit() }
        }
        commit()
        let seconds = GeofenceKernelBench.threadCPUSeconds() - start
        let perFix = 1e6 / Double(max(1, fleet.count))
        return Result(cpuMicrosecondsPerFix: seconds * perFix, commitMicrosecondsPerFix: committing * perFix, events: events,
                      quietShare: Double(logic.healthCounters["quietFixes"] ?? 0) / Double(max(1, fleet.count)))
    }
}

import Foundation
import LocusProtocol

/// The fleet through each service's `--stdio` on the same fixes: locus-fusion on the raw
/// fixes (approx output on), locus-geofence on the same fixes as `location.fused.*` with the
/// scene's regions and its database (as it runs in the pipeline), with the regions in memory
/// only, and with no regions, and locus-motion on them as fused input. Runs are alternated
/// round by round and the medians reported, since one run on a shared machine says little.
struct FleetStdioBench {
    let scene: GeofenceFleetScene
    let rounds: Int
    let directory: String
    let binaries: String

    struct Rates {
        var wall: [Double] = []
        var cpu: [Double] = []
        var wallMedian: Double { median(wall) }
        var cpuMedian: Double { median(cpu) }
    }

    /// Fixes per second of each run, by service, in the order printed.
    struct Result {
        var fusion = Rates()
        var geofence = Rates()
        var geofenceInMemory = Rates()
        var geofenceBare = Rates()
        var motion = Rates()
    }

    func run() throws -> Result {
        let raw = directory + "/raw.txt", fused = directory + "/fused.txt"
        let regions = directory + "/regions.txt", regionsAndFused = directory + "/regions-fused.txt"
        let t0 = scene.t0
        let rawFrames = scene.rawFrames(devicePrefix: "d", t0: t0, seed: 7)
        try StdioRun.write(rawFrames, to: raw)
        try StdioRun.write(rawFrames.map { (Topic.locationFusedPrefix + $0.topic.dropFirst(Topic.locationRawPrefix.count), $0.body) }, to: fused)
        let regionFrames = scene.regionFrames(owner: "bench", t: t0 - 1)
        try StdioRun.write(regionFrames, to: regions)
        try StdioRun.write(regionFrames + rawFrames.map { (Topic.locationFusedPrefix + $0.topic.dropFirst(Topic.locationRawPrefix.count), $0.body) },
                           to: regionsAndFused)
        let fixes = Double(scene.fixes)
        let geofenceArguments = ["--stdio", "--default-authorization", "always", "--quota", String(max(scene.circles.count, 10_000)),
                                 "--log-level", "warn"]
        var result = Result()
        for round in 0..<rounds {
            // A different service goes first each round, so none always meets the same neighbours' load.
            var steps: [() throws -> Void] = [
                {
                    let run = try StdioRun.run(binaries + "/locus-fusion", ["--stdio", "--log-level", "warn"], input: raw)
                    result.fusion.wall.append(fixes / run.wallSeconds)
                    result.fusion.cpu.append(fixes / run.cpuSeconds)
                },
                {
                    // The fixes' share: the run with regions and fixes less the run with the regions
                    // alone, each on a new database (what the pipeline's geofence runs with).
                    let database = directory + "/geofence.db"
                    func fresh() { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) } }
                    fresh()
                    let both = try StdioRun.run(binaries + "/locus-geofence", geofenceArguments + ["--db", database], input: regionsAndFused)
                    fresh()
                    let alone = try StdioRun.run(binaries + "/locus-geofence", geofenceArguments + ["--db", database], input: regions)
                    result.geofence.wall.append(fixes / max(both.wallSeconds - alone.wallSeconds, 1e-6))
                    result.geofence.cpu.append(fixes / max(both.cpuSeconds - alone.cpuSeconds, 1e-6))
                },
                {
                    let both = try StdioRun.run(binaries + "/locus-geofence", geofenceArguments, input: regionsAndFused)
                    let alone = try StdioRun.run(binaries + "/locus-geofence", geofenceArguments, input: regions)
                    result.geofenceInMemory.wall.append(fixes / max(both.wallSeconds - alone.wallSeconds, 1e-6))
                    result.geofenceInMemory.cpu.append(fixes / max(both.cpuSeconds - alone.cpuSeconds, 1e-6))
                },
                {
                    let run = try StdioRun.run(binaries + "/locus-geofence", geofenceArguments, input: fused)
                    result.geofenceBare.wall.append(fixes / run.wallSeconds)
                    result.geofenceBare.cpu.append(fixes / run.cpuSeconds)
                },
                {
                    let run = try StdioRun.run(binaries + "/locus-motion", ["--stdio", "--log-level", "warn"], input: fused)
                    result.motion.wall.append(fixes / run.wallSeconds)
                    result.motion.cpu.append(fixes / run.cpuSeconds)
                },
            ]
            steps = Array(steps[(round % steps.count)...] + steps[..<(round % steps.count)])
            for step in steps { try step() }
        }
        return result
    }

    static func report(_ result: Result, scene: GeofenceFleetScene) -> String {
        func k(_ rate: Double) -> String { String(format: "%.1f k", rate / 1_000) }
        func list(_ values: [Double]) -> String { values.map { String(format: "%.0f", $0 / 1_000) }.joined(separator: ", ") }
        func row(_ name: String, _ rates: Rates) -> String {
            "| \(name) | \(k(rates.wallMedian)) | \(list(rates.wall)) | \(k(rates.cpuMedian)) | \(list(rates.cpu)) |"
        }
        let ratio = result.fusion.wallMedian / result.geofence.wallMedian
        let cpuRatio = result.fusion.cpuMedian / result.geofence.cpuMedian
        return """
            Each service's --stdio on one fleet: \(scene.fixes) raw fixes of \(scene.devices) devices (one per device per second of \
            fix time), \(result.fusion.wall.count) alternated rounds; fixes/s, median and every run (k)

            | service (input) | wall median | wall runs | CPU median | CPU runs |
            |---|---:|---|---:|---|
            \(row("locus-fusion (location.raw.*, approx on)", result.fusion))
            \(row("locus-geofence (the same fixes as location.fused.*, \(scene.circles.count) regions, --db; fixes' share)", result.geofence))
            \(row("locus-geofence (the same, regions in memory only, no --db; fixes' share)", result.geofenceInMemory))
            \(row("locus-geofence (the same fixes, no regions)", result.geofenceBare))
            \(row("locus-motion (the same fixes as fused input)", result.motion))

            fusion ÷ geofence with regions and database: \(String(format: "%.2f", ratio))× in wall time, \(String(format: "%.2f", cpuRatio))× in CPU time
            fusion ÷ geofence with regions in memory: \(String(format: "%.2f", result.fusion.wallMedian / result.geofenceInMemory.wallMedian))× wall, \
            \(String(format: "%.2f", result.fusion.cpuMedian / result.geofenceInMemory.cpuMedian))× CPU; ÷ geofence with no regions: \
            \(String(format: "%.2f", result.fusion.wallMedian / result.geofenceBare.wallMedian))× wall, \
            \(String(format: "%.2f", result.fusion.cpuMedian / result.geofenceBare.cpuMedian))× CPU
            """
    }
}

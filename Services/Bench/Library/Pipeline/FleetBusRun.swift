import Foundation
import LocusBus
import LocusService
import LocusGeo
import LocusProtocol

/// A fleet's raw fixes through the whole stack on a real bus: this client publishes them,
/// locus-fusion fuses them, locus-geofence checks the fused fixes against the scene's
/// regions and locus-notifier turns every event into a notification (JSON-lines sink).
/// The floor is the same fixes through locus-bus alone, back to this client, in the same run.
///
/// Flow control and the end of the run: after every chunk of fixes a new marker device sends
/// two fixes inside a marker region that has a one-second dwell. Its dwell event can only
/// follow every fix before it through fusion and the geofence (each handles its input in
/// order), and its notification every event before it through the notifier; a chunk is sent
/// only when the marker four chunks back has been notified.
struct FleetBusRun {
    let scene: GeofenceFleetScene
    var debounceSeconds = 2.0
    let markerOwner = "bench-marker"
    let markerCenter = Coordinate(lat: 10, lon: 10)

    struct Result {
        var seconds: Double
        var floorSeconds: Double
        var events: Int
        var delivered: Int
        var duplicates: Int
        var missing: Int
        var processes: [String]
        /// CPU seconds per process during the pipeline run and during the floor.
        var cpu: [Double]
        var floorCPU: [Double]
    }

    func run() throws -> Result {
        let stack = BenchStack(tag: "fleet")
        defer { stack.stop() }
        let bus = try stack.start("locus-bus", ["--log-level", "warn"])
        // The markers are devices too: above fusion's default limit of 10 000 the limit is raised.
        let markers = scene.fixes / 10_000 + 1
        let fusion = try stack.start("locus-fusion", ["--log-level", "warn"]
                                     + (scene.devices + markers > 10_000 ? ["--max-devices", String(scene.devices + markers)] : []))
        let geofence = try stack.start("locus-geofence", ["--default-authorization", "always", "--debounce", String(debounceSeconds),
                                                          "--db", stack.directory + "/geofence.db", "--log-level", "warn",
                                                          "--quota", String(max(scene.circles.count, 10_000))])
        let notifier = try stack.start("locus-notifier", ["--sink", "jsonl:\(stack.directory)/notifications.jsonl",
                                                          "--state", stack.directory + "/notifier", "--log-level", "warn"])
        let processes = [("locus-bus", bus.processIdentifier), ("locus-fusion", fusion.processIdentifier),
                         ("locus-geofence", geofence.processIdentifier), ("locus-notifier", notifier.processIdentifier),
                         ("this client", getpid())]

        let context = ZMQContext()
        let floorPrefix = "bench.floor."
        let client = try BenchClient(stack: stack, context: context,
                                     prefixes: [Topic.regionStatePrefix, Topic.regionEventPrefix, Topic.notifyPrefix, floorPrefix],
                                     healthOf: ["fusion", "geofence", "notifier"])
        defer { client.close() }
        let (subscriber, publisher) = (client.subscriber, client.publisher)
        var flow = FleetFlow(subscriber: subscriber, publisher: publisher, markerOwner: markerOwner, floorPrefix: floorPrefix)

        // Fix times end well before the wall clock: fusion refuses fixes from the future.
        let rounds = Double((scene.fixes + scene.devices - 1) / scene.devices)
        let t0 = (Date().timeIntervalSince1970 - rounds - 200).rounded(.down)
        let frames = scene.rawFrames(devicePrefix: "d", t0: t0, seed: 7)

        // The floor: the same fixes through locus-bus and back, no service subscribed to them.
        let floorUsage = CPUUsage(processes)
        let floorSeconds = try flow.floor(frames.map { (floorPrefix + $0.topic.dropFirst(Topic.locationRawPrefix.count), $0.body) })
        let floorCPU = floorUsage.secondsSince()

        try flow.addRegions(scene.regionFrames(owner: "bench", t: t0 - 1), marker: markerRegion(), t: t0 - 1)

        let usage = CPUUsage(processes)
        let seconds = try flow.pipeline(frames, chunk: 10_000, chunksInFlight: 4) { number in
            markerFixes(number, t: t0 + Double(min(number * 10_000, scene.fixes - 1) / scene.devices))
        }
        let cpu = usage.secondsSince()
        let (events, delivered, duplicates, missing) = flow.tally()
        return Result(seconds: seconds, floorSeconds: floorSeconds, events: events, delivered: delivered, duplicates: duplicates,
                      missing: missing, processes: processes.map(\.0), cpu: cpu, floorCPU: floorCPU)
    }

    private func markerRegion() -> RegionAdd {
        RegionAdd(owner: markerOwner, region: Region(id: "marker", shape: .circle(center: GeoPoint(lon: markerCenter.lon, lat: markerCenter.lat),
                                                                                  radius: 500), dwell: 1))
    }

    /// Two fixes of marker device `number`, 1.5 s apart at the marker region's centre.
    private func markerFixes(_ number: Int, t: Double) -> [(topic: String, body: [UInt8])] {
        let device = "mark-\(number)"
        return [t, t + 1.5].enumerated().map { index, time in
            let fix = Location(device: device, source: "gps", lat: markerCenter.lat, lon: markerCenter.lon, hacc: 5)
            return (Topic.locationRaw(device), MessageCodec.encode(Message(body: .location(fix), id: "marker-\(number)-\(index)", t: time,
                                                                             src: "bench/marker")))
        }
    }

    static func report(_ result: Result, scene: GeofenceFleetScene) -> String {
        let fixes = Double(scene.fixes)
        func rate(_ seconds: Double) -> String { String(format: "%.1f k", fixes / seconds / 1_000) }
        var lines = [
            "Fleet pipeline on locus-bus: \(scene.fixes) raw fixes of \(scene.devices) devices, \(scene.circles.count) regions",
            "",
            "| | value |",
            "|---|---:|",
            "| fixes/s end to end (raw → fusion → geofence → notifier, every stage a process on the bus) | \(rate(result.seconds)) |",
            "| fixes/s through the bare bus (the same fixes, this client → locus-bus → this client) | \(rate(result.floorSeconds)) |",
            "| region events / notifications delivered | \(result.events) / \(result.delivered) |",
            "| events notified more than once / never | \(result.duplicates) / \(result.missing) |",
        ]
        for (index, name) in result.processes.enumerated() {
            lines.append(String(format: "| CPU µs per fix in %@, pipeline / bare bus | %.2f / %.2f |", name,
                                result.cpu[index] / fixes * 1e6, result.floorCPU[index] / fixes * 1e6))
        }
        lines.append(String(format: "| CPU µs per fix, all processes, pipeline / bare bus | %.2f / %.2f |",
                            result.cpu.reduce(0, +) / fixes * 1e6, result.floorCPU.reduce(0, +) / fixes * 1e6))
        return lines.joined(separator: "\n")
    }
}

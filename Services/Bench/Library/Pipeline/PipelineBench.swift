import Foundation
import LocusBus
import LocusService
import LocusGeo
import LocusProtocol

/// `locus bench pipeline`: the time from a raw fix leaving its provider to the notification
/// it causes arriving on the bus, through locus-bus, locus-fusion, locus-geofence and
/// locus-notifier as real processes. The bench is the provider: it publishes fixes at a
/// fixed rate with the fix time set to the moment of publishing, for devices that swing
/// in and out of a circle, so every region event names the deciding fix's send time.
/// The peer is one hop through locus-bus alone (the same fixes, received here), the floor
/// no multi-service path can beat.
enum PipelineBench {
    static let spec = CommandLineSpec(
        program: "locus bench pipeline",
        summary: "fix→notification latency through provider → fusion → geofence → notifier on a real bus; --fleet: fleet throughput",
        usage: "locus bench pipeline [--rate N] [--seconds S] [--devices N] | --fleet [--devices N] [--regions N] [--fixes N]",
        options: [
            OptionSpec("--rate", value: "N", help: "raw fixes per second, spread over the devices", default: "1000"),
            OptionSpec("--seconds", value: "S", help: "how long fixes are published", default: "20"),
            OptionSpec("--devices", value: "N", help: "devices swinging across the region boundary (default 100; --fleet: the fleet, default 10000)"),
            OptionSpec("--debounce", value: "SECONDS", help: "the geofence's debounce (fix time a new state must hold)", default: "2"),
            OptionSpec("--fleet", help: "fleet throughput instead of latency: each service's --stdio, then the whole stack on the bus"),
            OptionSpec("--regions", value: "N", help: "--fleet: circles (r 100–1000 m) among the fleet", default: "10000"),
            OptionSpec("--fixes", value: "N", help: "--fleet: raw fixes through the stack on the bus", default: "1000000"),
            OptionSpec("--stdio-fixes", value: "N", help: "--fleet: raw fixes through each service's --stdio", default: "200000"),
            OptionSpec("--stdio-rounds", value: "N", help: "--fleet: alternated --stdio rounds (0: none)", default: "5"),
            OptionSpec("--skip-bus", help: "--fleet: only the --stdio comparison"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Needs locus-bus, locus-fusion, locus-geofence, locus-motion and locus-notifier beside locus.")

    struct Settings {
        var rate = 1000.0
        var seconds = 20.0
        var devices = 100
        var debounceSeconds = 2.0
        /// Fixes sent in the first second are not scored: the services are still warming up.
        var warmupSeconds = 1.0
        /// Each device's distance from the centre swings radius ± amplitude over this period.
        var periodSeconds = 8.0
        var radiusMeters = 200.0
        var amplitudeMeters = 60.0
    }

    struct Result {
        var latencies: [Double]
        var hops: [Double]
        /// Each scored notification split at the hops it took, so a stall is pinned to a service.
        var stages: StageLatencies
        var fixesSent: Int
        var events: Int
        var notifications: Int
        var unmatched: Int
    }

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        if options.flag("--fleet") { return FleetBench.run(options) }
        var settings = Settings()
        do {
            settings.rate = try options.double("--rate") ?? settings.rate
            settings.seconds = try options.double("--seconds") ?? settings.seconds
            settings.devices = try options.int("--devices") ?? settings.devices
            settings.debounceSeconds = try options.double("--debounce") ?? settings.debounceSeconds
        } catch { ServiceProgram.usageFailure("locus bench pipeline", error.message) }
        guard settings.rate > 0, settings.seconds > settings.warmupSeconds, settings.devices > 0 else {
            ServiceProgram.usageFailure("locus bench pipeline", "--rate, --devices must be positive and --seconds above 1")
        }
        let result: Result
        do {
            result = try measure(settings)
        } catch {
            FileHandle.standardError.write(Data("locus bench pipeline: \(error)\n".utf8))
            return 1
        }
        print(report(result, settings))
        guard !result.latencies.isEmpty else { return 1 }
        let ours = Percentiles(result.latencies)
        let hop = Percentiles(result.hops)
        let peerName = "one hop through locus-bus"
        BenchRecorder.shared.record(BenchRow(name: "fix→notification p50, \(Int(settings.rate)) fixes/s", ours: ours.p50 * 1000,
                                             peer: hop.p50 * 1000, peerName: peerName, unit: "ms", goal: .none))
        BenchRecorder.shared.record(BenchRow(name: "fix→notification p99, \(Int(settings.rate)) fixes/s", ours: ours.p99 * 1000,
                                             peer: hop.p99 * 1000, peerName: peerName, unit: "ms", goal: .atMost(5)))
        return 0
    }

    static func report(_ result: Result, _ settings: Settings) -> String {
        let ours = Percentiles(result.latencies)
        let hop = Percentiles(result.hops)
        func ms(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }
        return """
            Pipeline: \(result.fixesSent) raw fixes at \(Int(settings.rate))/s for \(Int(settings.seconds)) s, \(settings.devices) devices, \
            geofence debounce \(settings.debounceSeconds) s

            | path | samples | p50 (ms) | p99 (ms) | max (ms) |
            |---|---:|---:|---:|---:|
            | raw fix → notify.* (bus, fusion, geofence, notifier) | \(result.latencies.count) | \(ms(ours.p50)) | \(ms(ours.p99)) | \(ms(ours.max)) |
            | raw fix → this subscriber (one hop through locus-bus) | \(result.hops.count) | \(ms(hop.p50)) | \(ms(hop.p99)) | \(ms(hop.max)) |
            \(result.stages.rows.map { row in
                let p = Percentiles(row.samples)
                return "| \(row.name) | \(row.samples.count) | \(ms(p.p50)) | \(ms(p.p99)) | \(ms(p.max)) |"
            }.joined(separator: "\n"))

            region events \(result.events), notifications \(result.notifications), unmatched \(result.unmatched)
            """
    }

    /// Starts the stack, adds the region, publishes the paced fixes and pairs every
    /// notification with the send time of the fix that decided its event.
    static func measure(_ settings: Settings) throws -> Result {
        let stack = BenchStack(tag: "pipeline")
        defer { stack.stop() }
        try stack.start("locus-bus", ["--log-level", "warn"])
        try stack.start("locus-fusion", ["--log-level", "warn"])
        try stack.start("locus-geofence", ["--default-authorization", "always", "--debounce", String(settings.debounceSeconds),
                                           "--log-level", "warn"])
        try stack.start("locus-notifier", ["--sink", "jsonl:\(stack.directory)/notifications.jsonl",
                                           "--state", stack.directory + "/notifier", "--log-level", "warn"])

        let context = ZMQContext()
        let client = try BenchClient(stack: stack, context: context,
                                     prefixes: [Topic.regionStatePrefix, Topic.regionEventPrefix, Topic.notifyPrefix,
                                                Topic.locationRaw("pipe-"), Topic.locationFused("pipe-")],
                                     healthOf: ["fusion", "geofence", "notifier"])
        defer { client.close() }
        let (subscriber, publisher) = (client.subscriber, client.publisher)

        let center = Coordinate(lat: 45, lon: 7)
        let add = try publisher.publish(.regionAdd(RegionAdd(owner: "bench", region: Region(
            id: "ring", shape: .circle(center: GeoPoint(lon: center.lon, lat: center.lat), radius: settings.radiusMeters)))),
            topic: Topic.regionCmd, t: Date().timeIntervalSince1970)
        var poller = Poller()
        poller.add(subscriber.socket)
        var acknowledged = false
        let addDeadline = Date().timeIntervalSince1970 + 10
        while !acknowledged, Date().timeIntervalSince1970 < addDeadline {
            _ = try poller.poll(timeoutMilliseconds: 100)
            while case .message(_, let message, _)? = try subscriber.receive(dontWait: true) {
                if case .regionAdded(let added) = message.body, added.re == add.envelope.id { acknowledged = true }
            }
        }
        guard acknowledged else { throw BenchFailure("the geofence did not acknowledge the region") }

        var ids = MessageIDGenerator()
        var sendTimes: [String: Double] = [:]  // "device@t" → wall time the fix left
        var eventFixes: [String: (key: String, t: Double)] = [:]  // event id → its deciding fix
        var fusedArrivals: [String: Double] = [:]  // "device@t" → wall time its fused fix arrived here
        var eventArrivals: [String: Double] = [:]  // event id → wall time it arrived here
        var fusedHops: [Double] = []
        var notificationArrivals: [(ref: String, at: Double)] = []
        var hops: [Double] = []
        var events = 0
        let names = (0..<settings.devices).map { "pipe-\($0)" }
        let start = Date().timeIntervalSince1970
        let scoredFrom = start + settings.warmupSeconds

        func drain() throws {
            while case .message(let topic, let message, _)? = try subscriber.receive(dontWait: true) {
                let now = Date().timeIntervalSince1970
                switch message.body {
                case .location(let fix) where topic.hasPrefix(Topic.locationRawPrefix):
                    if message.envelope.t >= scoredFrom { hops.append(now - message.envelope.t) }
                    _ = fix
                case .location(let fix) where topic.hasPrefix(Topic.locationFusedPrefix):
                    if message.envelope.t >= scoredFrom {
                        fusedHops.append(now - message.envelope.t)
                        fusedArrivals[key(fix.device, message.envelope.t)] = now
                    }
                case .regionEvent(let event):
                    events += 1
                    eventFixes[message.envelope.id] = (key(event.device, event.location.t), event.location.t)
                    eventArrivals[message.envelope.id] = now
                case .notification(let notification) where notification.status == .delivered:
                    notificationArrivals.append((notification.ref, now))
                default: break
                }
            }
        }

        let total = Int(settings.rate * settings.seconds)
        for number in 0..<total {
            let due = start + Double(number) / settings.rate
            while true {
                let now = Date().timeIntervalSince1970
                if now >= due { break }
                _ = try poller.poll(timeoutMilliseconds: max(0, Int((due - now) * 1000)))
                try drain()
            }
            let index = number % settings.devices
            let name = names[index]
            let t = Date().timeIntervalSince1970
            let phase = 2 * Double.pi * (t - start) / settings.periodSeconds + 2 * Double.pi * Double(index) / Double(settings.devices)
            let p = Geodesic.destination(from: center, azimuthDegrees: 360 * Double(index) / Double(settings.devices),
                                         distanceMeters: settings.radiusMeters + settings.amplitudeMeters * sin(phase))
            let fix = Location(device: name, source: "gps", lat: p.lat, lon: p.lon, hacc: 5, mode: "3d")
            try publisher.send(topic: Topic.locationRaw(name),
                               body: MessageCodec.encode(Message(body: .location(fix), id: ids.next(), t: t, src: "provider/bench",
                                                                 seq: number + 1)))
            if t >= scoredFrom { sendTimes[key(name, t)] = t }
            try drain()
        }
        // The tail: notifications still on their way.
        let tailEnd = Date().timeIntervalSince1970 + 2
        while Date().timeIntervalSince1970 < tailEnd {
            _ = try poller.poll(timeoutMilliseconds: 50)
            try drain()
        }

        var latencies: [Double] = []
        var unmatched = 0
        var stages = StageLatencies()
        stages.add("raw fix → location.fused (bus, fusion, bus), every fix", fusedHops)
        for arrival in notificationArrivals {
            guard let fix = eventFixes[arrival.ref] else { unmatched += 1; continue }
            guard let sent = sendTimes[fix.key] else {
                if fix.t >= scoredFrom { unmatched += 1 }  // else decided by a warm-up fix
                continue
            }
            latencies.append(arrival.at - sent)
            if let fused = fusedArrivals[fix.key], let event = eventArrivals[arrival.ref] {
                stages.add("  of which raw fix → location.fused", [fused - sent])
                stages.add("  of which location.fused → region.event (bus, geofence, bus)", [event - fused])
                stages.add("  of which region.event → notify.* (bus, notifier, bus)", [arrival.at - event])
            }
        }
        return Result(latencies: latencies, hops: hops, stages: stages, fixesSent: total, events: events,
                      notifications: notificationArrivals.count, unmatched: unmatched)
    }

    /// Identifies a fix by device and fix time; the time is the exact double sent, which
    /// fusion and the geofence carry through unchanged.
    static func key(_ device: String, _ t: Double) -> String { "\(device)@\(t.bitPattern)" }
}

/// Order statistics of a sample, in the sample's unit; nearest-rank percentiles.
struct Percentiles: Equatable {
    var p50: Double
    var p99: Double
    var max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func rank(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(sorted.count - 1, Swift.max(0, index))]
        }
        p50 = rank(0.5)
        p99 = rank(0.99)
        max = sorted.last ?? .nan
    }
}

/// Latency samples per named stage, in the order the stages were first named.
struct StageLatencies {
    private(set) var rows: [(name: String, samples: [Double])] = []

    mutating func add(_ name: String, _ samples: [Double]) {
        if let index = rows.firstIndex(where: { $0.name == name }) {
            rows[index].samples += samples
        } else {
            rows.append((name, samples))
        }
    }
}

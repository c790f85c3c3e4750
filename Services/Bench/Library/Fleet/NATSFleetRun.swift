import Foundation
import LocusGeo
import LocusNATS
import LocusProtocol
import LocusService

/// locus-geofence on a private three-node NATS cluster with JetStream (replicas 3), in one or
/// several partitions, fed the geofence bench's fleet from this process: regions through
/// `region.cmd`, then the fused fixes as the deployment's `--fix-delivery` sends them —
/// `durable`: through JetStream as fast as the servers confirm them, the run ending when every
/// partition's consumer has handled and acknowledged everything; `plain`: plain NATS as fast
/// as the client writes, the run ending when the partitions' health counts every fix received
/// (or nothing more arrives for 5 s: the rest is reported lost).
struct NATSFleetRun {
    let scene: GeofenceFleetScene
    let partitions: Int
    let latencySamples: Int
    var delivery: FixDelivery = .durable

    struct Figures {
        var fixesPerSecond: Double
        /// Fixes/s the cluster stored them at (the publishing alone).
        var storedPerSecond: Double
        var events: Int
        var cpuMicrosecondsPerFix: [(name: String, value: Double)]
        var latencies: [Double]
        /// Fixes the partitions never received (plain delivery only).
        var lost = 0
    }

    func measure() throws -> Figures {
        let cluster = try NATSBenchCluster(tag: "\(delivery.rawValue)-p\(partitions)")
        defer { cluster.down() }
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_PUB"] = cluster.endpoint
        var geofences: [Process] = []
        defer {
            for child in geofences where child.isRunning {
                child.terminate()
                child.waitUntilExit()
            }
        }
        let instances = partitions == 1 ? ["main"] : (0..<partitions).map { "p\($0)" }
        for (number, _) in instances.enumerated() {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ServiceProgram.ownDirectory + "/locus-geofence")
            process.arguments = ["--default-authorization", "always", "--log-level", "warn", "--quota", String(max(scene.circles.count, 10_000)),
                                 "--fix-delivery", delivery.rawValue]
                + (delivery == .plain ? ["--health-interval", "0.1"] : [])  // the run's end is read from health
                + (partitions == 1 ? [] : ["--partition", "\(number)/\(partitions)"])
            process.environment = environment
            try process.run()
            geofences.append(process)
        }
        let connection = try NATSConnection(endpoint: try NATSEndpoint(cluster.endpoint), name: "bench/fleet", credentials: nil)
        try connection.ensureStreams(delivery: delivery)
        let fused = delivery == .plain ? [] : instances.map { StreamLayout.consumerName(service: "geofence", instance: $0, prefix: Topic.locationFusedPrefix) }
        let commands = instances.map { StreamLayout.consumerName(service: "geofence", instance: $0, prefix: Topic.regionCmd) }
        let events = try NATSTap(connection: connection, prefixes: [Topic.regionEventPrefix, Topic.regionStatePrefix, Topic.healthPrefix])
        defer { events.close() }
        var health = PartitionHealth()
        try waitUntil(seconds: 60, "the geofence partitions did not subscribe") {
            _ = health.take(events.drain())
            return (fused + commands).allSatisfy { NATSClusterReport.backlog(connection, stream: $0.contains("region_cmd") ? "LOCUS_EVENTS" : "LOCUS_FIXES", consumer: $0) != nil }
                && (delivery == .durable || health.received.count == partitions)
        }
        progress("partitions subscribed; adding \(scene.circles.count) regions")

        // Regions, acknowledged by every partition (each keeps every region).
        var ids = MessageIDGenerator()
        for add in scene.regionAdds {
            let message = Message(body: .regionAdd(add), id: ids.next(), t: 0, src: "bench/fleet")
            try connection.publishDurable(subject: Topic.regionCmd, body: MessageCodec.encode(message), id: message.envelope.id, stream: StreamLayout.events.name)
        }
        guard connection.confirmPublishes(timeoutSeconds: 60) else { throw GeofenceBusRun.BenchError("the regions were not stored") }
        try drained(connection, stream: "LOCUS_EVENTS", consumers: commands, seconds: 300)
        var eventCount = 0
        if delivery == .plain {
            // Every partition's health after the regions: what it had received before the fixes.
            let since = Date().timeIntervalSince1970
            try waitUntil(seconds: 30, "the partitions sent no health") {
                eventCount += health.take(events.drain(), after: since)
                return health.fresh.count == partitions
            }
        } else {
            _ = events.drain()
        }
        let before = health.received.values.reduce(0, +)

        progress("regions added; publishing \(scene.fixes) fixes")
        // The fleet: pre-encoded, then published as fast as the servers store it.
        let frames = scene.fleet("d", ids: &ids).map {
            (subject: SubjectMapping.subject(forTopic: $0.topic), id: $0.message.envelope.id, body: MessageCodec.encode($0.message))
        }
        let processes = geofences.enumerated().map { ("locus-geofence \(instances[$0.offset])", $0.element.processIdentifier) }
            + cluster.pids.enumerated().map { ("nats-server n\($0.offset + 1)", $0.element) } + [("this client", getpid())]
        let usage = CPUUsage(processes)
        let start = Date().timeIntervalSince1970
        var lost = 0
        let seconds: Double, stored: Double
        switch delivery {
        case .durable:
            for (number, frame) in frames.enumerated() {
                try connection.publishDurable(subject: frame.subject, body: frame.body, id: frame.id, stream: StreamLayout.fixes.name)
                if number % 8192 == 8191, !connection.confirmPublishes(timeoutSeconds: 60) {
                    throw GeofenceBusRun.BenchError("the cluster stopped storing fixes")
                }
            }
            guard connection.confirmPublishes(timeoutSeconds: 60) else { throw GeofenceBusRun.BenchError("the cluster stopped storing fixes") }
            stored = Date().timeIntervalSince1970 - start
            progress("fixes stored in \(String(format: "%.1f", stored)) s; waiting for the partitions")
            try drained(connection, stream: "LOCUS_FIXES", consumers: fused, seconds: 600)
            seconds = Date().timeIntervalSince1970 - start
            eventCount = events.drain().filter { $0.topic.hasPrefix(Topic.regionEventPrefix) }.count
        case .plain:
            // As a Locus publisher (fusion) does: each device's last position kept at most every 5 s.
            var lastPositions = LastPositionWriter { subject, body in connection.publish(subject: subject, body: body) }
            for (number, frame) in frames.enumerated() {
                connection.publish(subject: frame.subject, body: frame.body)
                let now = ProcessInfo.processInfo.systemUptime
                lastPositions.note(subject: frame.subject, body: frame.body, now: now)
                if number % 1024 == 1023 { lastPositions.writeDue(now: now) }
            }
            lastPositions.writeAll(now: ProcessInfo.processInfo.systemUptime)
            guard connection.flush(timeoutSeconds: 60) else { throw GeofenceBusRun.BenchError("the cluster did not take the fixes") }
            stored = Date().timeIntervalSince1970 - start
            progress("fixes sent in \(String(format: "%.1f", stored)) s; waiting for the partitions")
            // Done when the partitions' health counts every fix; lost what has not come after 5 s of silence.
            var received = 0, lastChange = Date().timeIntervalSince1970, end = lastChange
            while received < frames.count && Date().timeIntervalSince1970 - lastChange < 5 {
                eventCount += health.take(events.drain())
                let now = health.received.values.reduce(0, +) - before
                if now != received {
                    received = now
                    lastChange = Date().timeIntervalSince1970
                    end = health.newest
                }
                usleep(2_000)
            }
            lost = max(0, frames.count - received)
            seconds = end - start
            // The last batches' events are confirmed by then but may still be on their way here.
            var quietSince = Date().timeIntervalSince1970
            while Date().timeIntervalSince1970 - quietSince < 1 {
                let more = health.take(events.drain())
                if more > 0 { eventCount += more; quietSince = Date().timeIntervalSince1970 }
                usleep(10_000)
            }
        }
        let cpu = usage.secondsSince()
        let latencies = try measureLatency(connection, events: events, ids: &ids)
        return Figures(fixesPerSecond: Double(frames.count - lost) / seconds, storedPerSecond: Double(frames.count) / stored, events: eventCount,
                       cpuMicrosecondsPerFix: zip(processes, cpu).map { ($0.0.0, $0.1 / Double(frames.count) * 1e6) },
                       latencies: latencies, lost: lost)
    }

    /// The newest `received` each partition reported in `health.geofence` (by `src`).
    private struct PartitionHealth {
        var received: [String: Int] = [:]
        /// Partitions heard from since the last `take(_:after:)` time.
        var fresh: Set<String> = []
        /// When the newest health message was taken.
        var newest = 0.0

        /// Takes health messages (returns the region events among the rest).
        mutating func take(_ messages: [NATSTap.Received], after: Double? = nil) -> Int {
            var events = 0
            for message in messages {
                if message.topic.hasPrefix(Topic.regionEventPrefix) { events += 1 }
                guard message.topic == Topic.health("geofence"), let decoded = try? MessageCodec.decode(message.body),
                      case .health(let health) = decoded.body, let count = health.counters["received"] else { continue }
                let src = decoded.envelope.src
                received[src] = count
                newest = Date().timeIntervalSince1970
                if let after, newest > after { fresh.insert(src) }
            }
            return events
        }
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("locus bench fleet: \(partitions) partition(s): \(text)\n".utf8))
    }

    /// Waits until every consumer has handled and acknowledged all that was stored for it.
    private func drained(_ connection: NATSConnection, stream: String, consumers: [String], seconds: Double) throws {
        try waitUntil(seconds: seconds, "the geofence partitions did not finish in \(Int(seconds)) s") {
            consumers.allSatisfy { name in
                NATSClusterReport.backlog(connection, stream: stream, consumer: name).map { $0.pending == 0 && $0.unacknowledged == 0 } ?? false
            }
        }
    }

    private func waitUntil(seconds: Double, _ failure: String, _ done: () -> Bool) throws {
        let deadline = Date().timeIntervalSince1970 + seconds
        while !done() {
            guard Date().timeIntervalSince1970 < deadline else { throw GeofenceBusRun.BenchError(failure) }
            usleep(20_000)
        }
    }

    /// As on the bus: a probe device walks into a 200 m circle far from the fleet; the time
    /// from sending the deciding fix to receiving its `enter` is one sample.
    private func measureLatency(_ connection: NATSConnection, events: NATSTap, ids: inout MessageIDGenerator) throws -> [Double] {
        let center = Coordinate(lat: 10, lon: 10)
        let add = Message(body: .regionAdd(RegionAdd(owner: "latency", region: Region(id: "gate", shape: .circle(
            center: GeoPoint(lon: center.lon, lat: center.lat), radius: 200)))), id: ids.next(), t: 0, src: "bench/fleet")
        try connection.publishDurable(subject: Topic.regionCmd, body: MessageCodec.encode(add), id: add.envelope.id, stream: StreamLayout.events.name)
        var added = 0
        try waitUntil(seconds: 30, "the latency region was not added") {
            added += events.drain().filter { $0.topic == Topic.regionState("latency") }.count
            return added >= partitions
        }
        let outside = Geodesic.destination(from: center, azimuthDegrees: 0, distanceMeters: 1000)
        var samples: [Double] = []
        for number in 0..<latencySamples {
            let device = "probe-\(number)"
            func send(_ p: Coordinate, _ t: Double) throws {
                let fix = Message(body: .location(Location(device: device, source: "fused", lat: p.lat, lon: p.lon, hacc: 5)),
                                  id: ids.next(), t: t, src: "bench/probe")
                let subject = SubjectMapping.subject(forTopic: Topic.locationFused(device))
                if delivery == .plain {
                    connection.publish(subject: subject, body: MessageCodec.encode(fix))
                    _ = connection.flush(timeoutSeconds: 10)
                } else {
                    try connection.publishDurable(subject: subject, body: MessageCodec.encode(fix), id: fix.envelope.id, stream: StreamLayout.fixes.name)
                }
            }
            try send(outside, 1_800_000_000)
            try send(center, 1_800_000_001)
            _ = delivery == .plain ? connection.flush(timeoutSeconds: 10) : connection.confirmPublishes(timeoutSeconds: 10)
            let sent = Date().timeIntervalSince1970
            try send(center, 1_800_000_012)
            var seen = false
            let deadline = sent + 5
            while !seen && Date().timeIntervalSince1970 < deadline {
                for received in events.drain() where received.topic == Topic.regionEvent("latency") {
                    if let message = try? MessageCodec.decode(received.body), case .regionEvent(let event) = message.body,
                       event.device == device, event.event == .enter {
                        samples.append(Date().timeIntervalSince1970 - sent)
                        seen = true
                    }
                }
                if !seen { usleep(200) }
            }
        }
        return samples
    }
}

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

/// Runs shapely on exactly the kernel's scene, written to a file in tangent-plane metres.
enum ShapelyPeer {
    static let script = """
    import json, sys, time
    import numpy as np
    import shapely
    from shapely import STRtree
    path, circles, points = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = np.fromfile(path, dtype="<f8")
    c = data[: circles * 3].reshape(circles, 3)
    p = data[circles * 3 :].reshape(points, 2)
    polygons = shapely.buffer(shapely.points(c[:, 0], c[:, 1]), c[:, 2], quad_segs=16)
    tree = STRtree(polygons)
    queries = shapely.points(p[:, 0], p[:, 1])
    start = time.perf_counter()
    found = tree.query(queries, predicate="within")
    seconds = time.perf_counter() - start
    print(json.dumps({"pointsPerSecond": points / seconds, "hits": int(found.shape[1]), "version": shapely.__version__}))
    """

    static func run(circles: Int, points: Int, seed: UInt64) -> (pointsPerSecond: Double, hits: Int, version: String)? {
        // The same draws, in the same order, as GeofenceKernelBench.
        var random = SeededGenerator(seed: seed)
        let half = GeofenceKernelBench.sceneSideMeters / 2
        var values: [Double] = []
        values.reserveCapacity(circles * 3 + points * 2)
        for _ in 0..<circles {
            values.append(Double.random(in: -half...half, using: &random))
            values.append(Double.random(in: -half...half, using: &random))
            values.append(Double.random(in: 100...1000, using: &random))
        }
        for _ in 0..<(points * 2) { values.append(Double.random(in: -half...half, using: &random)) }
        let path = NSTemporaryDirectory() + "locus-geofence-scene-\(getpid()).f64"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
        guard FileManager.default.createFile(atPath: path, contents: data) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, "\(circles)", "\(points)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let object = try? JSONSerialization.jsonObject(with: text) as? [String: Any],
              let rate = (object["pointsPerSecond"] as? NSNumber)?.doubleValue,
              let hits = (object["hits"] as? NSNumber)?.intValue else { return nil }
        return (rate, hits, object["version"] as? String ?? "?")
    }
}

/// locus-bus and locus-geofence as processes on private ipc endpoints, fed from here.
struct GeofenceBusRun {
    let circles: Int
    let devices: Int
    let fixes: Int
    let latencySamples: Int
    let seed: UInt64
    /// The square regions and devices fill; the kernel's 50 km keeps the two runs on one scene.
    var sideMeters = GeofenceKernelBench.sceneSideMeters

    func run() -> Int32 {
        let directory = NSTemporaryDirectory() + "locus-bench-geofence-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let endpoints = BusEndpoints(pub: "ipc://\(directory)/pub", sub: "ipc://\(directory)/sub")
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_PUB"] = endpoints.pub
        environment["LOCUS_SUB"] = endpoints.sub
        let binaries = ServiceProgram.ownDirectory
        var children: [Process] = []
        defer {
            for child in children.reversed() where child.isRunning {
                child.terminate()
                child.waitUntilExit()
            }
        }
        do {
            children.append(try launch(binaries + "/locus-bus", ["--log-level", "warn"], environment))
            children.append(try launch(binaries + "/locus-geofence",
                                       ["--default-authorization", "always", "--db", directory + "/geofence.db", "--log-level", "warn",
                                        "--quota", String(max(circles, 10_000))],
                                       environment))
            let processes = [("locus-geofence", children[1].processIdentifier), ("locus-bus", children[0].processIdentifier),
                             ("this client", getpid())]
            return try measure(endpoints, processes: processes)
        } catch {
            FileHandle.standardError.write(Data("locus bench geofence: \(error)\n".utf8))
            return 1
        }
    }

    private func launch(_ path: String, _ arguments: [String], _ environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        try process.run()
        return process
    }

    private func measure(_ endpoints: BusEndpoints, processes: [(name: String, pid: Int32)]) throws -> Int32 {
        let context = ZMQContext()
        let subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub,
                                           prefixes: [Topic.regionStatePrefix, Topic.regionEventPrefix, Topic.health("geofence")])
        let publisher = try BusPublisher(context: context, endpoint: endpoints.pub, source: "bench/geofence")
        defer {
            subscriber.socket.close()
            publisher.socket.close()
        }
        var poller = Poller()
        poller.add(subscriber.socket)
        func next(timeout: Double) throws -> Message? {
            let deadline = Date().timeIntervalSince1970 + timeout
            while Date().timeIntervalSince1970 < deadline {
                if case .message(_, let message, _)? = try subscriber.receive(dontWait: true) { return message }
                _ = try poller.poll(timeoutMilliseconds: 100)
            }
            return nil
        }
        guard try publisher.waitUntilConnected(timeoutSeconds: 10) else { throw BenchError("locus-bus did not start") }
        while let message = try next(timeout: 10) {
            if case .health = message.body { break }  // the geofence is up and subscribed
        }

        let scene = GeofenceFleetScene(circles: circles, devices: devices, fixes: fixes, seed: seed, sideMeters: sideMeters)
        var ids = MessageIDGenerator()
        let t0 = scene.t0
        // Pre-encoded, so that the publishing loop only sends.
        func fleet(_ prefix: String) -> [(topic: String, body: [UInt8])] {
            scene.fleet(prefix, ids: &ids).map { ($0.topic, MessageCodec.encode($0.message)) }
        }

        // The floor: the same fleet before any region exists, so the service only decodes,
        // finds no candidate and moves on. What this pass costs is the bus, the codec, the
        // runtime and this client — the part no geofence logic can speed up.
        let idleFrames = fleet("idle")
        let idleUsage = CPUUsage(processes)
        let idle = try drive(idleFrames, publisher: publisher, subscriber: subscriber, t0: t0)
        let idleCPU = idleUsage.secondsSince()

        // Regions: the kernel's scene, added through region.cmd and acknowledged.
        let setupStart = Date().timeIntervalSince1970
        var acknowledged = 0
        for (number, add) in scene.regionAdds.enumerated() {
            try publisher.publish(.regionAdd(add), topic: Topic.regionCmd, t: 0)
            if number % 1000 == 999 { acknowledged += try drainReplies(next) }
        }
        while acknowledged < circles, let message = try next(timeout: 30) {
            if case .regionAdded = message.body { acknowledged += 1 }
            if case .regionFailed(let failed) = message.body { throw BenchError("region \(failed.regionId) refused: \(failed.message)") }
        }
        let setupSeconds = Date().timeIntervalSince1970 - setupStart
        guard acknowledged == circles else { throw BenchError("only \(acknowledged) of \(circles) regions acknowledged") }

        let loadedFrames = fleet("d")
        let loadedUsage = CPUUsage(processes)
        let loaded = try drive(loadedFrames, publisher: publisher, subscriber: subscriber, t0: t0)
        let loadedCPU = loadedUsage.secondsSince()
        let (seconds, events) = (loaded.seconds, loaded.events)
        let latencies = try measureLatency(publisher: publisher, next: next, ids: &ids)

        print("| locus-geofence on locus-bus (\(circles) regions, \(devices) devices, \(Int(sideMeters / 1_000)) km square) | value |")
        print("|---|---:|")
        print("| regions added and acknowledged | \(circles) in \(String(format: "%.2f", setupSeconds)) s |")
        print("| fixes/s, \(fixes) fixes (decode, index, hysteresis, SQLite) | \(Int(Double(fixes) / seconds)) |")
        print("| fixes/s with no regions (bus, codec, runtime and this client: the floor) | \(Int(Double(fixes) / idle.seconds)) |")
        print("| events produced | \(events) |")
        // Wall rates depend on what else the two cores run; CPU time per fix does not.
        for (number, process) in processes.enumerated() {
            func perFix(_ seconds: [Double]) -> String { String(format: "%.2f", seconds[number] / Double(fixes) * 1e6) }
            print("| CPU µs per fix in \(process.name), with regions / floor | \(perFix(loadedCPU)) / \(perFix(idleCPU)) |")
        }
        if let peak = ProcSample.readPeakKilobytes(pid: processes[0].pid) {
            print("| locus-geofence peak RSS (every region and device in memory) | \(String(format: "%.1f MB", Double(peak) / 1024)) |")
        }
        if let geofenceSeconds = loadedCPU.first, geofenceSeconds > 0 {
            print("| fixes/s per core of locus-geofence, with regions (fixes ÷ its CPU time) | \(Int(Double(fixes) / geofenceSeconds)) |")
        }
        if latencies.isEmpty {
            print("| fix→event latency | (no samples) |")
        } else {
            let sorted = latencies.sorted()
            func percentile(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))] * 1000 }
            print("| fix→event latency p50 / p99 (\(sorted.count) samples) | \(String(format: "%.3f / %.3f ms", percentile(0.5), percentile(0.99))) |")
        }
        return 0
    }

    /// Publishes `frames` as fast as the service keeps up and waits until it has handled
    /// all of them; returns the time taken and the events seen.
    ///
    /// Flow control: fixes go in chunks, each followed by a marker command; a chunk is sent
    /// only when the marker `chunksInFlight` chunks back has been answered. That keeps more
    /// than two of the service's batches (up to 16 384 fixes each) waiting for it, so it
    /// does not idle between them (with two chunks in flight the machine stood 15–20 % idle),
    /// and keeps the queues well below the bus's limit, where the bus would drop (and count)
    /// for a slow subscriber. A full queue to the bus makes a send fail (the publisher's
    /// socket does not drop), and the loop then reads and tries again.
    private func drive(_ frames: [(topic: String, body: [UInt8])], publisher: BusPublisher, subscriber: BusSubscriber,
                       t0: Double) throws -> (seconds: Double, events: Int) {
        var events = 0
        var replies = Set<String>()
        // Events are counted from their topic frame alone and only the markers' replies are
        // decoded: this client shares the two cores with the bus and the service, so every
        // microsecond it spends per event is taken from what is being measured.
        let eventPrefix = Array(Topic.regionEventPrefix.utf8)
        var poller = Poller()
        poller.add(subscriber.socket)
        func receiveOne() throws -> Bool {
            guard let frames = try subscriber.socket.receiveMultipart(dontWait: true) else { return false }
            guard frames.count == 2 else { return true }
            if frames[0].starts(with: eventPrefix) {
                events += 1
            } else if let message = try? MessageCodec.decode(frames[1]), case .regionList(let reply) = message.body, let re = reply.re {
                replies.insert(re)
            }
            return true
        }
        func receive(waitingUpTo seconds: Double) throws {
            let deadline = Date().timeIntervalSince1970 + seconds
            while try !receiveOne() {
                let left = deadline - Date().timeIntervalSince1970
                if left <= 0 { return }
                _ = try poller.poll(timeoutMilliseconds: max(1, min(100, Int(left * 1000))))
            }
        }
        func answered(_ marker: String, seconds: Double) throws -> Bool {
            let deadline = Date().timeIntervalSince1970 + seconds
            while !replies.contains(marker) && Date().timeIntervalSince1970 < deadline {
                try receive(waitingUpTo: deadline - Date().timeIntervalSince1970)
            }
            return replies.contains(marker)
        }
        func sendAll(_ topic: String, _ body: [UInt8]) throws {
            while try !publisher.socket.send(topic: topic, body: body, dontWait: true) {
                try receive(waitingUpTo: 0.001)
            }
        }
        let chunk = 10_000
        let chunksInFlight = 4
        var markers: [String] = []
        let start = Date().timeIntervalSince1970
        for (number, frame) in frames.enumerated() {
            try sendAll(frame.topic, frame.body)
            if number % 256 == 0 {
                while try receiveOne() {}
            }
            if number % chunk == chunk - 1 || number == frames.count - 1 {
                let marker = publisher.stamp(.regionListRequest(RegionListRequest(owner: "bench-marker")), topic: Topic.regionCmd, t: t0)
                markers.append(marker.envelope.id)
                try sendAll(Topic.regionCmd, MessageCodec.encode(marker))
                if markers.count >= chunksInFlight {
                    guard try answered(markers[markers.count - chunksInFlight], seconds: 60) else { throw BenchError("the geofence stopped answering") }
                }
            }
        }
        guard try answered(markers.last ?? "", seconds: 120) else { throw BenchError("the geofence did not finish the fixes within 120 s") }
        return (Date().timeIntervalSince1970 - start, events)
    }

    private func drainReplies(_ next: (Double) throws -> Message?) throws -> Int {
        var count = 0
        while let message = try next(0.001) {
            if case .regionAdded = message.body { count += 1 }
            if case .regionFailed(let failed) = message.body { throw BenchError("region \(failed.regionId) refused: \(failed.message)") }
        }
        return count
    }

    /// One device at a time walks into a 200 m circle far from the fleet: an outside fix, an
    /// inside fix, and an inside fix after the debounce — the last one decides; the time
    /// from sending it to receiving its `enter` is one sample.
    private func measureLatency(publisher: BusPublisher, next: (Double) throws -> Message?, ids: inout MessageIDGenerator) throws -> [Double] {
        let center = Coordinate(lat: 10, lon: 10)
        try publisher.publish(.regionAdd(RegionAdd(owner: "latency", region: Region(id: "gate", shape: .circle(
            center: GeoPoint(lon: center.lon, lat: center.lat), radius: 200)))), topic: Topic.regionCmd, t: 0)
        while let message = try next(5) {
            if case .regionAdded(let added) = message.body, added.owner == "latency" { break }
        }
        let outside = Geodesic.destination(from: center, azimuthDegrees: 0, distanceMeters: 1000)
        var samples: [Double] = []
        for number in 0..<latencySamples {
            let device = "probe-\(number)"
            let t = 1_800_000_000.0
            func send(_ p: Coordinate, _ time: Double) throws {
                let fix = Location(device: device, source: "fused", lat: p.lat, lon: p.lon, hacc: 5)
                try publisher.send(topic: Topic.locationFused(device), body: MessageCodec.encode(Message(body: .location(fix), id: ids.next(), t: time, src: "bench/probe")))
            }
            try send(outside, t)
            try send(center, t + 1)
            let sent = Date().timeIntervalSince1970
            try send(center, t + 12)
            while let message = try next(5) {
                if case .regionEvent(let event) = message.body, event.device == device, event.event == .enter {
                    samples.append(Date().timeIntervalSince1970 - sent)
                    break
                }
            }
        }
        return samples
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// CPU time of a few processes from a starting point, so a throughput run can say what
/// each fix cost each process whatever else shared the cores.
struct CPUUsage {
    let processes: [(name: String, pid: Int32)]
    let start: [Int]

    init(_ processes: [(name: String, pid: Int32)]) {
        self.processes = processes
        start = processes.map { ProcSample.read(pid: $0.pid)?.cpuTicks ?? 0 }
    }

    /// Seconds of CPU (user + system, every thread) each process used since `init`.
    func secondsSince() -> [Double] {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return zip(processes, start).map { process, before in
            Double((ProcSample.read(pid: process.pid)?.cpuTicks ?? before) - before) / ticksPerSecond
        }
    }
}

import Foundation
import LocusBus
import LocusService
import LocusProtocol

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
        do {
            report(try measureOnTheBus())
            return 0
        } catch {
            FileHandle.standardError.write(Data("locus bench geofence: \(error)\n".utf8))
            return 1
        }
    }

    /// What a run on the bus measured (`locus bench geofence`, and the ZeroMQ row of `locus bench fleet`).
    struct Figures {
        var setupSeconds: Double
        var fixesPerSecond: Double
        var floorFixesPerSecond: Double
        var events: Int
        /// Per process (geofence, bus, this client): CPU µs per fix with regions, and at the floor.
        var cpuMicrosecondsPerFix: [(name: String, loaded: Double, floor: Double)]
        var peakKilobytes: Int?
        var latencies: [Double]
    }

    /// Starts locus-bus and locus-geofence on private ipc endpoints and measures them.
    func measureOnTheBus() throws -> Figures {
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
        children.append(try launch(binaries + "/locus-bus", ["--log-level", "warn"], environment))
        children.append(try launch(binaries + "/locus-geofence",
                                   ["--default-authorization", "always", "--db", directory + "/geofence.db", "--log-level", "warn",
                                    "--quota", String(max(circles, 10_000))],
                                   environment))
        let processes = [("locus-geofence", children[1].processIdentifier), ("locus-bus", children[0].processIdentifier),
                         ("this client", getpid())]
        return try measure(endpoints, processes: processes)
    }

    private func launch(_ path: String, _ arguments: [String], _ environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        try process.run()
        return process
    }

    private func measure(_ endpoints: BusEndpoints, processes: [(name: String, pid: Int32)]) throws -> Figures {
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

        return Figures(setupSeconds: setupSeconds, fixesPerSecond: Double(fixes) / seconds, floorFixesPerSecond: Double(fixes) / idle.seconds,
                       events: events,
                       cpuMicrosecondsPerFix: processes.enumerated().map { number, process in
                           (process.name, loadedCPU[number] / Double(fixes) * 1e6, idleCPU[number] / Double(fixes) * 1e6)
                       },
                       peakKilobytes: ProcSample.readPeakKilobytes(pid: processes[0].pid), latencies: latencies)
    }

    private func report(_ figures: Figures) {
        print("| locus-geofence on locus-bus (\(circles) regions, \(devices) devices, \(Int(sideMeters / 1_000)) km square) | value |")
        print("|---|---:|")
        print("| regions added and acknowledged | \(circles) in \(String(format: "%.2f", figures.setupSeconds)) s |")
        print("| fixes/s, \(fixes) fixes (decode, index, hysteresis, SQLite) | \(Int(figures.fixesPerSecond)) |")
        print("| fixes/s with no regions (bus, codec, runtime and this client: the floor) | \(Int(figures.floorFixesPerSecond)) |")
        print("| events produced | \(figures.events) |")
        // Wall rates depend on what else the two cores run; CPU time per fix does not.
        for process in figures.cpuMicrosecondsPerFix {
            print("| CPU µs per fix in \(process.name), with regions / floor | \(String(format: "%.2f", process.loaded)) / \(String(format: "%.2f", process.floor)) |")
        }
        if let peak = figures.peakKilobytes {
            print("| locus-geofence peak RSS (every region and device in memory) | \(String(format: "%.1f MB", Double(peak) / 1024)) |")
        }
        if let geofence = figures.cpuMicrosecondsPerFix.first, geofence.loaded > 0 {
            print("| fixes/s per core of locus-geofence, with regions (fixes ÷ its CPU time) | \(Int(1e6 / geofence.loaded)) |")
        }
        if figures.latencies.isEmpty {
            print("| fix→event latency | (no samples) |")
        } else {
            let (p50, p99) = Self.percentiles(figures.latencies)
            print("| fix→event latency p50 / p99 (\(figures.latencies.count) samples) | \(String(format: "%.3f / %.3f ms", p50, p99)) |")
        }
    }

    /// p50 and p99 of latencies in seconds, in milliseconds.
    static func percentiles(_ latencies: [Double]) -> (Double, Double) {
        let sorted = latencies.sorted()
        func percentile(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))] * 1000 }
        return (percentile(0.5), percentile(0.99))
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

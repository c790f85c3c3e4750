import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusService
import LocusProtocol

/// `locus bench bus --isolation`: what device scopes cost. The same locus-bus (CURVE on tcp
/// loopback, an allow-list of N apps authorized always/full) carries a fleet's positions to
/// N clients of K devices each, twice per round: unfiltered (no scopes; each client
/// subscribes to its own K device topics) and scoped (each entry names its K devices; each
/// client asks for all of `location.raw.` and the bus grants its K). Every message reaches
/// one client either way, so the ratio is the cost of the bus doing the filtering. A meter
/// subscriber with the service role times the stream; the clients are drained and every
/// message they get is checked against their scope (misdelivered must be 0).
enum IsolationBench {
    struct Figures {
        var rate = 0.0
        var lost = 0
        var misdelivered = 0
        var setupSeconds = 0.0
    }

    static func run(clients: Int, scopes: Int, count: Int, rounds: Int) -> Int32 {
        let fleet: BenchFleet
        do { fleet = try BenchFleet(clients: clients, scopes: scopes) } catch {
            FileHandle.standardError.write(Data("locus bench bus: cannot make CURVE keys: \(error)\n".utf8))
            return 1
        }
        var unfiltered: [Figures] = []
        var scoped: [Figures] = []
        for round in 0..<rounds {
            // Alternated, so load from elsewhere on the machine falls on both alike.
            let order = round % 2 == 0 ? [false, true] : [true, false]
            for isScoped in order {
                let figures = measure(fleet, scoped: isScoped, count: count, tag: "\(round)\(isScoped ? "s" : "u")")
                if isScoped { scoped.append(figures) } else { unfiltered.append(figures) }
                FileHandle.standardError.write(Data("round \(round) \(isScoped ? "scoped" : "unfiltered"): \(Int(figures.rate)) msg/s\n".utf8))
            }
        }
        let open = median(unfiltered.map(\.rate))
        let filtered = median(scoped.map(\.rate))
        print("| bus isolation (\(clients) CURVE clients × \(scopes) devices, \(count) msgs to \(clients * scopes) devices, median of \(rounds)) "
            + "| messages/s | lost | misdelivered | setup s |")
        print("|---|---:|---:|---:|---:|")
        for (name, runs) in [("unfiltered (no scopes; clients subscribe to their devices)", unfiltered),
                             ("device scopes (clients ask for location.raw.; the bus grants their devices)", scoped)] {
            print("| \(name) | \(Int(median(runs.map(\.rate)))) | \(runs.map(\.lost).reduce(0, +)) | "
                + "\(runs.map(\.misdelivered).reduce(0, +)) | \(String(format: "%.1f", median(runs.map(\.setupSeconds)))) |")
        }
        print("| ratio scoped / unfiltered | \(BusBench.format(BusBench.ratio(filtered, open))) | | | goal ≥ 0.80 |")
        BenchRecorder.shared.record(BenchRow(name: "bus, \(clients) clients × \(scopes) device scopes", ours: filtered, peer: open,
                                             peerName: "the same bus unfiltered", unit: "msg/s", goal: .ratioAtLeast(0.8)))
        return (scoped + unfiltered).contains { $0.misdelivered > 0 } ? 1 : 0
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// One run: the broker on its own thread and context, the clients drained on another, the meter here.
    static func measure(_ fleet: BenchFleet, scoped: Bool, count: Int, tag: String) -> Figures {
        var figures = Figures()
        let directory = NSTemporaryDirectory() + "locus-bench-iso-\(getpid())-\(tag)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let endpoints = BenchTransport.tcp.endpoints(directory: directory) else { return Figures(lost: count) }
        do { try AuthorizationStore(directory: directory).save(fleet.records) } catch { return Figures(lost: count) }
        let brokerContext = ZMQContext()
        let context = ZMQContext()
        zmq_ctx_set(context.handle, ZMQ_MAX_SOCKETS, Int32(fleet.clients.count + 64))
        let brokerReady = DispatchSemaphore(value: 0)
        let brokerDone = DispatchSemaphore(value: 0)
        let brokerThread = Thread {
            var configuration = BrokerConfiguration(pubEndpoint: endpoints.pub, subEndpoint: endpoints.sub)
            configuration.highWaterMark = 0
            configuration.healthIntervalSeconds = 5
            configuration.authorization = fleet.authorization(scoped: scoped, stateDirectory: directory)
            let broker = Broker(configuration: configuration, log: ServiceLog(name: "bench", minimum: .error))
            do { try broker.run(context: brokerContext) { brokerReady.signal() } } catch { brokerReady.signal() }
            brokerDone.signal()
        }
        brokerThread.start()
        brokerReady.wait()
        let started = Date().timeIntervalSince1970
        let drain = FleetDrain(fleet: fleet, scoped: scoped, context: context, endpoint: endpoints.sub)
        let publisher = FleetPublisher(fleet: fleet, context: context, endpoint: endpoints.pub, count: count)
        do {
            let meter = try ZMQSocket(context: context, type: .sub)
            try meter.setOption(ZMQ_RCVHWM, 0)
            try fleet.meterKeys.apply(to: meter)
            try meter.connect(endpoints.sub)
            try meter.subscribe("location.raw.")
            drain.start()
            publisher.start()
            // Ready when every client has had a probe on one of its devices.
            if drain.waitUntilEveryClientHeard(timeoutSeconds: 120) {
                figures.setupSeconds = Date().timeIntervalSince1970 - started
                drain.resetCounts()
                publisher.go()
                figures.rate = try timeStream(meter, count: count, received: &figures.lost)
                figures.lost = count - figures.lost
                _ = drain.waitFor(total: count, timeoutSeconds: 10)
                figures.misdelivered = drain.misdelivered
            } else {
                FileHandle.standardError.write(Data("locus bench bus: only \(drain.heard) of \(fleet.clients.count) clients connected in 120 s\n".utf8))
                figures.lost = count
            }
            meter.close()
        } catch {
            FileHandle.standardError.write(Data("locus bench bus: \(error)\n".utf8))
            figures.lost = count
        }
        publisher.finish()
        drain.finish()
        context.shutdown()
        brokerContext.shutdown()
        brokerDone.wait()
        return figures
    }

    /// Messages per second at the meter, from the first measured message to the last.
    static func timeStream(_ meter: ZMQSocket, count: Int, received: inout Int) throws -> Double {
        var poller = Poller()
        poller.add(meter)
        var first = 0.0
        var last = 0.0
        while received < count {
            guard try poller.poll(timeoutMilliseconds: 5000)[0] else { break }
            while received < count, let frames = try meter.receiveMultipart(dontWait: true) {
                guard frames.count == 2, frames[1] != BenchFleet.probeBody else { continue }
                if received == 0 { first = Date().timeIntervalSince1970 }
                received += 1
            }
            last = Date().timeIntervalSince1970
        }
        return last > first ? Double(received - 1) / (last - first) : 0
    }
}

import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusProvider
import LocusService
import LocusProtocol

/// `locus bench bus`: messages/s through locus-bus beside a bare libzmq XSUB/XPUB proxy
/// (`zmq_proxy`), with the same publisher, subscriber, message and queue bounds in the
/// same run, so the ratio is what the cache, counting and checks cost.
///
/// `--curve` measures both brokers on tcp loopback twice, with NULL and with CURVE, so the
/// figures side by side show what encryption (and, for locus-bus, the ZAP allow-list and
/// per-client grants that CURVE requires there) costs on the same machine in the same run.
enum BusBench {
    static let spec = CommandLineSpec(
        program: "locus bench bus",
        summary: "bus throughput beside a raw libzmq proxy",
        usage: "locus bench bus [--count N] [--rounds R] [--curve | --isolation [--clients N] [--scopes K]]",
        options: [
            OptionSpec("--count", value: "N", help: "messages per round", default: "500000"),
            OptionSpec("--rounds", value: "R", help: "rounds per broker; the best is reported", default: "3"),
            OptionSpec("--curve", help: "measure on tcp loopback, each broker with NULL and with CURVE side by side; without it: ipc, NULL only"),
            OptionSpec("--isolation", help: "measure device scopes: N CURVE clients × K devices each, scoped beside unfiltered on the same bus"),
            OptionSpec("--clients", value: "N", help: "clients for --isolation", default: "1000"),
            OptionSpec("--scopes", value: "K", help: "devices per client for --isolation", default: "10"),
            OptionSpec("--help", help: "print this help and exit"),
        ])

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let count: Int
        let rounds: Int
        do {
            count = try options.int("--count") ?? 500_000
            rounds = try options.int("--rounds") ?? 3
        } catch { ServiceProgram.usageFailure("locus bench bus", error.message) }
        guard count > 1, rounds > 0 else { ServiceProgram.usageFailure("locus bench bus", "--count > 1 and --rounds > 0") }
        if options.flag("--curve") { return runCurve(count: count, rounds: rounds) }
        if options.flag("--isolation") {
            let clients: Int
            let scopes: Int
            do {
                clients = try options.int("--clients") ?? 1000
                scopes = try options.int("--scopes") ?? 10
            } catch { ServiceProgram.usageFailure("locus bench bus", error.message) }
            guard clients > 0, scopes > 0 else { ServiceProgram.usageFailure("locus bench bus", "--clients and --scopes must be > 0") }
            return IsolationBench.run(clients: clients, scopes: scopes, count: count, rounds: rounds)
        }
        let body = sampleBody()
        var raw = BenchFigure()
        var locus = BenchFigure()
        for round in 0..<rounds {
            raw.add(measure(BenchSetup(broker: .raw, transport: .ipc), count: count, body: body, tag: "r\(round)"))
            locus.add(measure(BenchSetup(broker: .locus, transport: .ipc), count: count, body: body, tag: "l\(round)"))
        }
        print("| bus (\(body.count)-byte location bodies on a cached topic, \(count) msgs, best of \(rounds)) | messages/s | lost |")
        print("|---|---:|---:|")
        print("| raw libzmq XSUB/XPUB proxy | \(Int(raw.best)) | \(raw.lost) |")
        print("| locus-bus (cache, counters, framing checks) | \(Int(locus.best)) | \(locus.lost) |")
        print("| ratio locus-bus / raw | \(format(ratio(locus.best, raw.best))) | goal ≥ 0.60 |")
        BenchRecorder.shared.record(BenchRow(name: "bus, NULL security", ours: locus.best, peer: raw.best,
                                             peerName: "raw libzmq XSUB/XPUB proxy", unit: "msg/s", goal: .ratioAtLeast(0.6)))
        return 0
    }

    /// NULL and CURVE for both brokers on tcp loopback, interleaved round by round so that
    /// load from elsewhere on the machine falls on all four alike.
    static func runCurve(count: Int, rounds: Int) -> Int32 {
        let keys: BenchKeys
        do { keys = try BenchKeys() } catch {
            FileHandle.standardError.write(Data("locus bench bus: cannot make CURVE keys: \(error)\n".utf8))
            return 1
        }
        let body = sampleBody()
        var figures: [BenchSetup: BenchFigure] = [:]
        let setups = [BrokerKind.raw, .locus].flatMap { broker in
            [BenchSetup(broker: broker, transport: .tcp), BenchSetup(broker: broker, transport: .tcp, keys: keys)]
        }
        for round in 0..<rounds {
            for (index, setup) in setups.enumerated() {
                figures[setup, default: BenchFigure()].add(measure(setup, count: count, body: body, tag: "\(round)-\(index)"))
            }
        }
        func row(_ broker: BrokerKind) -> (null: BenchFigure, curve: BenchFigure) {
            (figures[BenchSetup(broker: broker, transport: .tcp)] ?? BenchFigure(),
             figures[BenchSetup(broker: broker, transport: .tcp, keys: keys)] ?? BenchFigure())
        }
        let raw = row(.raw)
        let locus = row(.locus)
        print("| bus on tcp loopback (\(body.count)-byte location bodies, \(count) msgs, best of \(rounds)) | NULL messages/s | CURVE messages/s | CURVE / NULL | lost NULL / CURVE |")
        print("|---|---:|---:|---:|---:|")
        print("| raw libzmq XSUB/XPUB proxy (CURVE server without a ZAP handler: encrypts, admits any key) "
            + "| \(Int(raw.null.best)) | \(Int(raw.curve.best)) | \(format(ratio(raw.curve.best, raw.null.best))) | \(raw.null.lost) / \(raw.curve.lost) |")
        print("| locus-bus (NULL: open bus; CURVE: ZAP allow-list, per-client grants on a manual XPUB) "
            + "| \(Int(locus.null.best)) | \(Int(locus.curve.best)) | \(format(ratio(locus.curve.best, locus.null.best))) | \(locus.null.lost) / \(locus.curve.lost) |")
        print("| ratio locus-bus / raw | \(format(ratio(locus.null.best, raw.null.best))) | \(format(ratio(locus.curve.best, raw.curve.best))) | | |")
        BenchRecorder.shared.record(BenchRow(name: "bus, CURVE on tcp (ZAP allow-list)", ours: locus.curve.best, peer: raw.curve.best,
                                             peerName: "raw libzmq proxy, CURVE without ZAP", unit: "msg/s", goal: .ratioAtLeast(0.6)))
        return 0
    }

    static func ratio(_ a: Double, _ b: Double) -> Double { b > 0 ? a / b : 0 }
    static func format(_ value: Double) -> String { String(format: "%.2f", value) }

    static func sampleBody() -> [UInt8] {
        let location = Location(device: "truck-7", source: "gps", lat: 31.2304167, lon: 121.4737012, hacc: 4.2,
                                alt: 12.5, speed: 13.9, course: 87.5, mode: "3d", sats: 11, hdop: 0.9)
        return MessageCodec.encode(Message(body: .location(location), id: "bench-0000000000000001", t: 1_790_000_000.25,
                                           src: "provider/bench", seq: 1))
    }

    /// One round: a broker on its own thread, a publisher thread, the subscriber here.
    /// The broker has a context of its own (its own I/O thread, as in its own process), the
    /// two clients share another; each round makes new ones, so a locus-bus ZAP handler never
    /// serves the raw proxy.
    static func measure(_ setup: BenchSetup, count: Int, body: [UInt8], tag: String) -> (rate: Double, lost: Int) {
        let directory = NSTemporaryDirectory() + "locus-bench-\(getpid())-\(tag)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let endpoints = setup.transport.endpoints(directory: directory) else {
            FileHandle.standardError.write(Data("locus bench bus: no free tcp port on 127.0.0.1\n".utf8))
            return (0, count)
        }
        let brokerContext = ZMQContext()
        let context = ZMQContext()
        let brokerDone = DispatchSemaphore(value: 0)
        let brokerReady = DispatchSemaphore(value: 0)
        let brokerThread = Thread {
            switch setup.broker {
            case .raw: runRawProxy(context: brokerContext, endpoints: endpoints, serverKeys: setup.keys?.server, ready: brokerReady)
            case .locus:
                var configuration = BrokerConfiguration(pubEndpoint: endpoints.pub, subEndpoint: endpoints.sub)
                configuration.highWaterMark = 0
                configuration.healthIntervalSeconds = 5
                if let authorization = setup.keys?.brokerAuthorization { configuration.authorization = authorization }
                let broker = Broker(configuration: configuration, log: ServiceLog(name: "bench", minimum: .error))
                do { try broker.run(context: brokerContext) { brokerReady.signal() } } catch {
                    brokerReady.signal()
                    FileHandle.standardError.write(Data("locus bench bus: broker: \(error)\n".utf8))
                }
            }
            brokerDone.signal()
        }
        brokerThread.start()
        brokerReady.wait()

        var rate = 0.0
        var received = 0
        do {
            let subscriber = try ZMQSocket(context: context, type: .sub)
            try subscriber.setOption(ZMQ_RCVHWM, 0)
            try setup.keys?.subscriber.apply(to: subscriber)
            try subscriber.connect(endpoints.sub)
            try subscriber.subscribe("location.raw.bench")
            let go = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            let probing = StopFlag()
            // Releases the publisher on every path, also when receiving failed half-way.
            defer {
                probing.raise()
                go.signal()
                done.signal()
            }
            let publisherCurve = setup.keys?.publisher
            let publisherThread = Thread {
                publish(context: context, endpoint: endpoints.pub, curve: publisherCurve, body: body, count: count,
                        probing: probing, go: go, done: done)
            }
            publisherThread.start()
            // Wait until a probe arrives: the path publisher → broker → subscriber is live.
            var probePoller = Poller()
            probePoller.add(subscriber)
            var live = false
            let probeDeadline = Date().timeIntervalSince1970 + 10
            while !live, Date().timeIntervalSince1970 < probeDeadline {
                guard try probePoller.poll(timeoutMilliseconds: 500)[0] else { continue }
                while let frames = try subscriber.receiveMultipart(dontWait: true) {
                    if frames.first == Array("location.raw.bench-probe".utf8) { live = true }
                }
            }
            probing.raise()
            go.signal()
            if live {
                var first = 0.0
                var last = 0.0
                var poller = Poller()
                poller.add(subscriber)
                while received < count {
                    guard try poller.poll(timeoutMilliseconds: 3000)[0] else { break }
                    while received < count, let frames = try subscriber.receiveMultipart(dontWait: true) {
                        guard frames.first == Array("location.raw.bench".utf8) else { continue }
                        if received == 0 { first = Date().timeIntervalSince1970 }
                        received += 1
                    }
                    last = Date().timeIntervalSince1970
                }
                rate = last > first ? Double(received - 1) / (last - first) : 0
            } else {
                FileHandle.standardError.write(Data("locus bench bus: no path through the broker within 10 s (\(tag))\n".utf8))
            }
            subscriber.close()
        } catch {
            FileHandle.standardError.write(Data("locus bench bus: \(error)\n".utf8))
        }
        context.shutdown()
        brokerContext.shutdown()
        brokerDone.wait()
        return (rate, count - received)
    }

    /// Sends `count` messages after `go`, and keeps the socket open until `done`: closing it
    /// earlier would drop what is still queued once the linger runs out (CURVE drains slowly).
    static func publish(context: ZMQContext, endpoint: String, curve: CurveClientOptions?, body: [UInt8], count: Int,
                        probing: StopFlag, go: DispatchSemaphore, done: DispatchSemaphore) {
        do {
            let socket = try ZMQSocket(context: context, type: .pub)
            defer {
                done.wait()
                socket.close()
            }
            try socket.setOption(ZMQ_SNDHWM, 0)
            try curve?.apply(to: socket)
            try socket.connect(endpoint)
            while !probing.isRaised {
                try socket.send(topic: "location.raw.bench-probe", body: Array("{}".utf8))
                usleep(5_000)
            }
            go.wait()
            let topic = Array("location.raw.bench".utf8)
            for _ in 0..<count {
                try socket.send(topic, more: true)
                try socket.send(body)
            }
        } catch {
            FileHandle.standardError.write(Data("locus bench bus publisher: \(error)\n".utf8))
        }
    }

    /// The peer: libzmq's own proxy loop between an XSUB and an XPUB, nothing else. With
    /// `serverKeys` both are CURVE servers and no ZAP handler runs, so every key is admitted:
    /// the figure is the cost of encryption alone.
    static func runRawProxy(context: ZMQContext, endpoints: BusEndpoints, serverKeys: CurveKeyPair?, ready: DispatchSemaphore) {
        do {
            let frontend = try ZMQSocket(context: context, type: .xsub)
            let backend = try ZMQSocket(context: context, type: .xpub)
            try frontend.setOption(ZMQ_RCVHWM, 0)
            try backend.setOption(ZMQ_SNDHWM, 0)
            if let serverKeys {
                for socket in [frontend, backend] {
                    try socket.setOption(ZMQ_CURVE_SERVER, 1)
                    try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(serverKeys.secretKey.utf8))
                }
            }
            try frontend.bind(endpoints.pub)
            try backend.bind(endpoints.sub)
            ready.signal()
            zmq_proxy(frontend.handle, backend.handle, nil)
            frontend.close()
            backend.close()
        } catch {
            ready.signal()
            FileHandle.standardError.write(Data("raw proxy: \(error)\n".utf8))
        }
    }
}

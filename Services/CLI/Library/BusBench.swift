import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusProtocol

/// `locus bench bus`: messages/s through locus-bus beside a bare libzmq XSUB/XPUB proxy
/// (`zmq_proxy`), with the same publisher, subscriber, message and queue bounds in the
/// same run, so the ratio is what the cache, counting and checks cost.
enum BusBench {
    static let spec = CommandLineSpec(
        program: "locus bench bus",
        summary: "bus throughput beside a raw libzmq proxy",
        usage: "locus bench bus [--count N] [--rounds R]",
        options: [
            OptionSpec("--count", value: "N", help: "messages per round", default: "500000"),
            OptionSpec("--rounds", value: "R", help: "rounds per broker; the best is reported", default: "3"),
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
        let body = sampleBody()
        var raw: [Double] = []
        var locus: [Double] = []
        var lost = (raw: 0, locus: 0)
        for round in 0..<rounds {
            let a = measure(broker: .raw, count: count, body: body, tag: "r\(round)")
            let b = measure(broker: .locus, count: count, body: body, tag: "l\(round)")
            raw.append(a.rate)
            locus.append(b.rate)
            lost.raw += a.lost
            lost.locus += b.lost
        }
        let bestRaw = raw.max() ?? 0
        let bestLocus = locus.max() ?? 0
        print("| bus (\(body.count)-byte location bodies on a cached topic, \(count) msgs, best of \(rounds)) | messages/s | lost |")
        print("|---|---:|---:|")
        print("| raw libzmq XSUB/XPUB proxy | \(Int(bestRaw)) | \(lost.raw) |")
        print("| locus-bus (cache, counters, framing checks) | \(Int(bestLocus)) | \(lost.locus) |")
        let ratio = bestRaw > 0 ? bestLocus / bestRaw : 0
        print("| ratio locus-bus / raw | \(String(format: "%.2f", ratio)) | goal ≥ 0.60 |")
        BenchRecorder.shared.record(BenchRow(name: "bus, NULL security", ours: bestLocus, peer: bestRaw,
                                             peerName: "raw libzmq XSUB/XPUB proxy", unit: "msg/s", goal: .ratioAtLeast(0.6)))
        return 0
    }

    static func sampleBody() -> [UInt8] {
        let location = Location(device: "truck-7", source: "gps", lat: 31.2304167, lon: 121.4737012, hacc: 4.2,
                                alt: 12.5, speed: 13.9, course: 87.5, mode: "3d", sats: 11, hdop: 0.9)
        return MessageCodec.encode(Message(body: .location(location), id: "bench-0000000000000001", t: 1_790_000_000.25,
                                           src: "provider/bench", seq: 1))
    }

    enum Kind { case raw, locus }

    /// One round: a broker on its own thread, a publisher thread, the subscriber here.
    static func measure(broker kind: Kind, count: Int, body: [UInt8], tag: String) -> (rate: Double, lost: Int) {
        let directory = NSTemporaryDirectory() + "locus-bench-\(getpid())-\(tag)"
        let pubEndpoint = "ipc://\(directory)/pub"
        let subEndpoint = "ipc://\(directory)/sub"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = ZMQContext()
        let brokerDone = DispatchSemaphore(value: 0)
        let brokerReady = DispatchSemaphore(value: 0)
        let brokerThread = Thread {
            switch kind {
            case .raw: runRawProxy(context: context, pub: pubEndpoint, sub: subEndpoint, ready: brokerReady)
            case .locus:
                var configuration = BrokerConfiguration(pubEndpoint: pubEndpoint, subEndpoint: subEndpoint)
                configuration.highWaterMark = 0
                configuration.healthIntervalSeconds = 5
                let broker = Broker(configuration: configuration, log: ServiceLog(name: "bench", minimum: .error))
                try? broker.run(context: context) { brokerReady.signal() }
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
            try subscriber.connect(subEndpoint)
            try subscriber.subscribe("location.raw.bench")
            let go = DispatchSemaphore(value: 0)
            let probing = ManagedFlag()
            let publisherThread = Thread {
                publish(context: context, endpoint: pubEndpoint, body: body, count: count, probing: probing, go: go)
            }
            publisherThread.start()
            // Wait until a probe arrives: the path publisher → broker → subscriber is live.
            while true {
                guard let frames = try subscriber.receiveMultipart() else { continue }
                if frames.first == Array("location.raw.bench-probe".utf8) { break }
            }
            probing.clear()
            go.signal()
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
            subscriber.close()
        } catch {
            FileHandle.standardError.write(Data("locus bench bus: \(error)\n".utf8))
        }
        context.shutdown()
        brokerDone.wait()
        return (rate, count - received)
    }

    static func publish(context: ZMQContext, endpoint: String, body: [UInt8], count: Int,
                        probing: ManagedFlag, go: DispatchSemaphore) {
        do {
            let socket = try ZMQSocket(context: context, type: .pub)
            defer { socket.close() }
            try socket.setOption(ZMQ_SNDHWM, 0)
            try socket.connect(endpoint)
            while probing.isSet {
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

    /// The peer: libzmq's own proxy loop between an XSUB and an XPUB, nothing else.
    static func runRawProxy(context: ZMQContext, pub: String, sub: String, ready: DispatchSemaphore) {
        do {
            let frontend = try ZMQSocket(context: context, type: .xsub)
            let backend = try ZMQSocket(context: context, type: .xpub)
            try frontend.setOption(ZMQ_RCVHWM, 0)
            try backend.setOption(ZMQ_SNDHWM, 0)
            try frontend.bind(pub)
            try backend.bind(sub)
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

/// A flag shared between two threads.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = true
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func clear() { lock.lock(); value = false; lock.unlock() }
}

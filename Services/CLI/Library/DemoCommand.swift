import Foundation
import LocusBus
import LocusProtocol

/// `locus demo`: the whole stack on private endpoints, a short self-check a person can
/// watch, and a summary; it ends by itself with exit 0 when every check passed.
enum DemoCommand {
    static let spec = CommandLineSpec(
        program: "locus demo",
        summary: "start the stack on private endpoints, run a self-check, print a summary",
        usage: "locus demo [--bin DIR]",
        options: [
            OptionSpec("--bin", value: "DIR", help: "where the locus-* executables are (default: beside locus)"),
            OptionSpec("--help", help: "print this help and exit"),
        ])

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let log = ServiceLog(name: "locus demo")
        let directory = options.string("--bin") ?? Supervisor.ownDirectory
        let runtime = NSTemporaryDirectory() + "locus-demo-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let endpoints = BusEndpoints(pub: "ipc://\(runtime)/pub", sub: "ipc://\(runtime)/sub")
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_PUB"] = endpoints.pub
        environment["LOCUS_SUB"] = endpoints.sub
        let services = Supervisor.installedServices(in: directory)
        guard services.contains("locus-bus") else {
            log.error("locus-bus not found in \(directory)")
            return 69
        }
        let supervisor = Supervisor(log: log, environment: environment)
        let signals = ServiceProgram.handleTerminationSignals { _ in supervisor.stop() }
        defer { signals.forEach { $0.cancel() } }
        let supervising = Thread { supervisor.run() }
        var checks: [(String, Bool)] = []
        do {
            try supervisor.start(.init(name: "locus-bus", executable: directory + "/locus-bus", arguments: ["--health-interval", "1"]))
            supervising.start()
            checks.append(("bus answers with its health", UpCommand.waitForBus(endpoints.sub, log: log)))
            for service in services where service != "locus-bus" {
                try supervisor.start(.init(name: service, executable: directory + "/" + service, arguments: []))
            }
            checks += try selfCheck(endpoints: endpoints)
        } catch {
            log.error("demo failed: \(error)")
            checks.append(("stack started", false))
        }
        supervisor.stop()
        while !supervising.isFinished && supervising.isExecuting { usleep(10_000) }
        print("\nLocus demo summary")
        for (name, passed) in checks { print("  [\(passed ? "ok" : "FAILED")] \(name)") }
        let failed = checks.filter { !$0.1 }.count
        print(failed == 0 ? "all \(checks.count) checks passed" : "\(failed) of \(checks.count) checks failed")
        return failed == 0 ? 0 : 1
    }

    /// Publishes a fix, watches it arrive, then joins late and expects the cached last value.
    static func selfCheck(endpoints: BusEndpoints) throws -> [(String, Bool)] {
        let context = ZMQContext()
        let publisher = try BusPublisher(context: context, endpoint: endpoints.pub, source: "demo/self-check")
        defer { publisher.socket.close() }
        guard try publisher.waitUntilConnected(timeoutSeconds: 5) else { return [("publisher reaches the bus", false)] }
        let live = try BusSubscriber(context: context, endpoint: endpoints.sub, prefixes: ["location.raw.demo"])
        defer { live.socket.close() }
        let fix = Location(device: "demo", source: "manual", lat: 31.2304, lon: 121.4737, hacc: 10, mode: "2d")
        var sent: Message?
        var arrived = false
        for _ in 0..<200 where !arrived {
            sent = try publisher.publish(.location(fix), topic: Topic.locationRaw("demo"), t: Date().timeIntervalSince1970)
            arrived = try receive(from: live, within: 0.05) { $0.envelope.id == sent?.envelope.id }
        }
        if let sent { print(TextForm.line(topic: Topic.locationRaw("demo"), body: MessageCodec.encode(sent))) }
        let late = try BusSubscriber(context: context, endpoint: endpoints.sub, prefixes: ["location.raw.demo"])
        defer { late.socket.close() }
        let replayed = try receive(from: late, within: 3) { $0.envelope.id == sent?.envelope.id }
        return [("a published fix reaches a subscriber", arrived),
                ("a late subscriber gets the last fix at once", replayed)]
    }

    static func receive(from subscriber: BusSubscriber, within seconds: Double, _ match: (Message) -> Bool) throws -> Bool {
        var poller = Poller()
        poller.add(subscriber.socket)
        let deadline = Date().timeIntervalSince1970 + seconds
        while Date().timeIntervalSince1970 < deadline {
            let remaining = deadline - Date().timeIntervalSince1970
            guard try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))[0] else { continue }
            while let received = try subscriber.receive(dontWait: true) {
                if case let .message(_, message, _) = received, match(message) { return true }
            }
        }
        return false
    }
}

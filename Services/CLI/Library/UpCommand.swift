import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus up`: the whole stack on one host with the local defaults.
enum UpCommand {
    static let spec = CommandLineSpec(
        program: "locus up",
        summary: "start the bus and every installed service, restarting any that crash",
        usage: "locus up [--bin DIR] [--provider 'PLUGIN ARGS'...] [--only NAMES] [--config-dir DIR]",
        options: [
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint for publishers", environment: "LOCUS_PUB"),
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint for subscribers", environment: "LOCUS_SUB"),
            OptionSpec("--bin", value: "DIR", help: "where the locus-* executables are (default: beside locus)"),
            OptionSpec("--provider", value: "ARGS", help: "also run `locus-provider ARGS` (repeatable)", repeatable: true),
            OptionSpec("--only", value: "NAMES", help: "comma-separated services to start (default: all installed)"),
            OptionSpec("--config-dir", value: "DIR", help: "start each service with --config DIR/<service>.json when that file exists (bus.json, fusion.json, ...)"),
            OptionSpec("--healthy-after", value: "SECONDS", help: "a service that ran this long before exiting is restarted after 0.5 s again", default: "30"),
            OptionSpec("--config", value: "FILE", help: "read options from a JSON object"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Stops everything on SIGTERM or Ctrl-C, last started first.")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let log = ServiceLog(name: "locus up")
        var endpoints = BusEndpoints.fromEnvironment()
        if let pub = options.string("--pub") { endpoints.pub = pub }
        if let sub = options.string("--sub") { endpoints.sub = sub }
        let directory = options.string("--bin") ?? Supervisor.ownDirectory
        var services = Supervisor.installedServices(in: directory)
        if let only = options.string("--only") {
            let wanted = Set(only.split(separator: ",").map { $0.hasPrefix("locus-") ? String($0) : "locus-" + $0 })
            services = services.filter { wanted.contains($0) }
        }
        guard services.first == "locus-bus" || options.string("--only") != nil else {
            log.error("locus-bus not found in \(directory) (build with `swift build` or pass --bin)")
            return 69
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_PUB"] = endpoints.pub
        environment["LOCUS_SUB"] = endpoints.sub
        let supervisor = Supervisor(log: log, environment: environment)
        do { supervisor.healthyAfterSeconds = max(0, try options.double("--healthy-after") ?? 30) } catch {
            ServiceProgram.usageFailure("locus up", error.message)
        }
        let configDirectory = options.string("--config-dir")
        let signals = ServiceProgram.handleTerminationSignals { _ in supervisor.stop() }
        defer { signals.forEach { $0.cancel() } }
        do {
            for service in services {
                try supervisor.start(.init(name: service, executable: directory + "/" + service,
                                           arguments: configArguments(service, directory: configDirectory)))
                if service == "locus-bus" && !waitForBus(endpoints.sub, log: log) {
                    log.warn("starting the other services anyway; they connect when the bus is up")
                }
            }
            for (index, line) in options.strings("--provider").enumerated() {
                let words = line.split(separator: " ").map(String.init)
                try supervisor.start(.init(name: "locus-provider#\(index)", executable: directory + "/locus-provider", arguments: words))
            }
        } catch {
            log.error("cannot start: \(error)")
            supervisor.stop()
            supervisor.run()
            return 1
        }
        log.info("running \(services.joined(separator: ", ")); Ctrl-C stops")
        supervisor.run()
        return 0
    }

    /// `--config DIR/fusion.json` for `locus-fusion` when that file exists: the same per-service
    /// files as `/etc/locus` (deploy/config), so a stack started by hand can keep state too.
    static func configArguments(_ service: String, directory: String?) -> [String] {
        guard let directory else { return [] }
        let name = service.hasPrefix("locus-") ? String(service.dropFirst("locus-".count)) : service
        let path = directory + "/" + name + ".json"
        return FileManager.default.fileExists(atPath: path) ? ["--config", path] : []
    }

    /// Waits (bounded) until the bus answers with its health, so services start against a live bus.
    static func waitForBus(_ endpoint: String, log: ServiceLog, timeoutSeconds: Double = 5) -> Bool {
        let context = ZMQContext()
        do {
            let subscriber = try BusSubscriber(context: context, endpoint: endpoint, prefixes: [Topic.health("bus")])
            defer { subscriber.socket.close() }
            var poller = Poller()
            poller.add(subscriber.socket)
            let deadline = Date().timeIntervalSince1970 + timeoutSeconds
            while Date().timeIntervalSince1970 < deadline {
                let remaining = deadline - Date().timeIntervalSince1970
                guard try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))[0] else { continue }
                while let received = try subscriber.receive(dontWait: true) {
                    switch received {
                    case .message: return true
                    case .duplicate: continue
                    case let .rejected(_, error): log.warn("unexpected message from the bus: \(error.message)")
                    }
                }
            }
        } catch {
            log.error("bus check failed: \(error)")
            return false
        }
        log.error("the bus did not answer at \(endpoint) within \(timeoutSeconds) s")
        return false
    }
}

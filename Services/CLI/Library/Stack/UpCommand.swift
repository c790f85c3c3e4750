import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus up`: the whole stack on one host with the local defaults.
enum UpCommand {
    static let spec = CommandLineSpec(
        program: "locus up",
        summary: "start the bus and every installed service, restarting any that crash",
        usage: "locus up [--bin DIR] [--provider 'PLUGIN ARGS'...] [--only NAMES] [--with gpsd,metrics] [--config-dir DIR] [--state DIR] [--grant-local LEVEL]",
        options: [
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint for publishers", environment: "LOCUS_PUB"),
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint for subscribers", environment: "LOCUS_SUB"),
            OptionSpec("--bin", value: "DIR", help: "where the locus-* executables are (default: beside locus)"),
            OptionSpec("--provider", value: "ARGS", help: "also run `locus-provider ARGS` (repeatable)", repeatable: true),
            OptionSpec("--only", value: "NAMES", help: "comma-separated services to start (default: all installed)"),
            OptionSpec("--with", value: "NAMES", help: "comma-separated optional services to start too: gpsd (it takes port 2947), metrics (Prometheus on 127.0.0.1:9470)"),
            OptionSpec("--config-dir", value: "DIR", help: "start each service with --config DIR/<service>.json when that file exists (bus.json, fusion.json, ...)"),
            OptionSpec("--state", value: "DIR", help: "where services without a config file keep their state: the notifier's outbox and notifications.jsonl, the geofence's regions, fusion's last known locations (default: $XDG_STATE_HOME/locus or ~/.local/state/locus)"),
            OptionSpec("--grant-local", value: "LEVEL", help: "single-user host policy (kiosk, robot): every local owner starts with LEVEL (whenInUse or always) and requests up to it are granted at once; without it `locus auth grant` decides"),
            OptionSpec("--healthy-after", value: "SECONDS", help: "a service that ran this long before exiting is restarted after 0.5 s again", default: "30"),
            OptionSpec("--no-restart-status", value: "LIST", help: "comma-separated exit statuses after which a service is left down, not restarted (64 bad arguments, 78 bad configuration)", default: "64,78"),
            OptionSpec("--config", value: "FILE", help: "read options from a JSON object"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Stops everything on SIGTERM or Ctrl-C, last started first. A service that exits with a status in\n--no-restart-status is a mistake to fix, not a crash: it is left down and the reason logged.\nWithout a config file for them, locus-notifier writes notifications to DIR/notifications.jsonl,\nlocus-geofence keeps regions in DIR/geofence.db and locus-fusion its last known locations and\napprox secret in DIR/fusion (DIR from --state).")

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
        for name in (options.string("--with") ?? "").split(separator: ",").map({ $0.hasPrefix("locus-") ? String($0) : "locus-" + $0 }) {
            guard Supervisor.optionalServices.contains(name) else {
                ServiceProgram.usageFailure("locus up", "--with takes \(Supervisor.optionalServices.map { $0.dropFirst(6) }.joined(separator: ", ")), not '\(name.dropFirst(6))'")
            }
            guard FileManager.default.isExecutableFile(atPath: directory + "/" + name) else {
                log.error("\(name) not found in \(directory) (build with `swift build` or pass --bin)")
                return 69
            }
            if !services.contains(name) { services.append(name) }
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
        let statuses = (options.string("--no-restart-status") ?? "64,78").split(separator: ",")
        let prevent = statuses.compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
        guard prevent.count == statuses.count else {
            ServiceProgram.usageFailure("locus up", "--no-restart-status: expected comma-separated exit statuses such as 64,78")
        }
        supervisor.preventRestartStatuses = Set(prevent)
        let configDirectory = options.string("--config-dir")
        let stateDirectory = options.string("--state") ?? StateDirectory.defaultPath()
        let grantLocal = options.string("--grant-local")
        if let grantLocal, grantLocal != "whenInUse" && grantLocal != "always" {
            ServiceProgram.usageFailure("locus up", "--grant-local takes whenInUse or always, not '\(grantLocal)'")
        }
        let signals = ServiceProgram.handleTerminationSignals { _ in supervisor.stop() }
        defer { signals.forEach { $0.cancel() } }
        do {
            for service in services {
                var arguments = configArguments(service, directory: configDirectory)
                if arguments.isEmpty {
                    arguments = try defaultArguments(service, stateDirectory: stateDirectory, log: log)
                }
                arguments += policyArguments(service, grantLocal: grantLocal)
                try supervisor.start(.init(name: service, executable: directory + "/" + service, arguments: arguments))
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

    /// What a service needs to work out of the box when no config file names it: the notifier
    /// a sink (a JSON-lines file) and an outbox, the geofence a database, fusion a state directory
    /// (last known locations survive a restart, and the approx grid's secret with them, so a
    /// restart does not move every reduced-accuracy point), all under `stateDirectory`.
    static func defaultArguments(_ service: String, stateDirectory: String, log: ServiceLog) throws -> [String] {
        switch service {
        case "locus-notifier":
            let directory = try StateDirectory.create(stateDirectory)
            let file = directory + "/notifications.jsonl"
            log.info("locus-notifier has no config file: notifications go to \(file)")
            return ["--sink", "jsonl:" + file, "--state", directory + "/notifier"]
        case "locus-geofence":
            let directory = try StateDirectory.create(stateDirectory)
            log.info("locus-geofence has no config file: regions are kept in \(directory)/geofence.db")
            return ["--db", directory + "/geofence.db"]
        case "locus-fusion":
            let directory = try StateDirectory.create(stateDirectory)
            log.info("locus-fusion has no config file: last known locations and the approx secret are kept in \(directory)/fusion")
            return ["--state", directory + "/fusion"]
        default:
            return []
        }
    }

    /// The single-user policy as each service takes it: the bus decides requests up to the
    /// level, the geofence assumes it for owners the bus has not decided yet.
    static func policyArguments(_ service: String, grantLocal: String?) -> [String] {
        guard let grantLocal else { return [] }
        switch service {
        case "locus-bus": return ["--grant-local", grantLocal]
        case "locus-geofence": return ["--default-authorization", grantLocal]
        default: return []
        }
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

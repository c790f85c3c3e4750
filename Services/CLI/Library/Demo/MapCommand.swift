import Foundation
import LocusBus
import LocusService
import LocusMap
import LocusNet

/// `locus map`: a live map of the bus in a browser, served from this process.
enum MapCommand {
    static let spec = CommandLineSpec(
        program: "locus map",
        summary: "serve a live map of devices, regions and events to a browser",
        usage: "locus map [--listen 127.0.0.1:8470] [--client-accuracy full|reduced] [--tiles URL-TEMPLATE]",
        options: [
            OptionSpec("--listen", value: "HOST:PORT", help: "address to serve HTTP on (IPv4)", default: "127.0.0.1:8470"),
            OptionSpec("--allow-remote", help: "allow --listen on an address other than loopback"),
            OptionSpec("--client-accuracy", value: "full|reduced", help: "what the page may show: reduced streams only location.approx.*", default: "full"),
            OptionSpec("--tiles", value: "URL-TEMPLATE", help: "base-map tiles, e.g. http://127.0.0.1:8080/{z}/{x}/{y}.png (default: a grid only)"),
            OptionSpec("--max-connections", value: "N", help: "open connections at once", default: "64"),
            OptionSpec("--request-timeout", value: "SECONDS", help: "time a client has to send its request", default: "5"),
            OptionSpec("--max-queue-bytes", value: "N", help: "event bytes queued for one client before it is dropped as too slow", default: "1048576"),
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint to subscribe to", environment: "LOCUS_SUB"),
            OptionSpec("--log-level", value: "LEVEL", help: "debug, info, warn or error", default: "info"),
            OptionSpec("--config", value: "FILE", help: "read options from a JSON object"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Open the printed URL. The page needs no network beyond this server (no CDN); see docs/map.md.")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let program = "locus map"
        guard let listen = ListenAddress(parsing: options.string("--listen") ?? "") else {
            ServiceProgram.usageFailure(program, "--listen expects HOST:PORT with an IPv4 host")
        }
        guard listen.isLoopback || options.flag("--allow-remote") else {
            ServiceProgram.usageFailure(program, "--listen \(listen) is not loopback; add --allow-remote to serve other hosts")
        }
        guard let accuracy = ClientAccuracy(rawValue: options.string("--client-accuracy") ?? "") else {
            ServiceProgram.usageFailure(program, "--client-accuracy must be full or reduced")
        }
        var configuration = MapConfiguration(subscribeEndpoint: options.string("--sub") ?? BusEndpoints.fromEnvironment().sub)
        configuration.listen = listen
        configuration.clientAccuracy = accuracy
        if let tiles = options.string("--tiles") {
            if let problem = MapConfiguration.validateTileTemplate(tiles) { ServiceProgram.usageFailure(program, problem) }
            configuration.tileURLTemplate = tiles
        }
        do throws(UsageError) {
            if let connections = try options.int("--max-connections") {
                guard connections > 0 else { throw UsageError("--max-connections must be positive") }
                configuration.limits.maximumConnections = connections
            }
            if let seconds = try options.double("--request-timeout") {
                guard seconds > 0 else { throw UsageError("--request-timeout must be positive") }
                configuration.limits.requestTimeoutSeconds = seconds
            }
            if let bytes = try options.int("--max-queue-bytes") {
                guard bytes >= 4096 else { throw UsageError("--max-queue-bytes must be at least 4096") }
                configuration.limits.maximumQueuedBytes = bytes
            }
        } catch { ServiceProgram.usageFailure(program, error.message) }

        let log = ServiceLog(name: program, minimum: ServiceProgram.logLevel(options, program: program))
        let context = ZMQContext()
        let server: MapServer
        do { server = try MapServer(configuration: configuration, context: context, log: log) } catch {
            log.error(error.message)
            return 1
        }
        let signals = ServiceProgram.handleTerminationSignals { _ in server.stop() }
        defer { signals.forEach { $0.cancel() } }
        // The URL on stdout (one line, flushed) is how scripts and tests learn the port chosen for :0.
        FileHandle.standardOutput.write(Data("http://\(listen.host):\(server.port)/\n".utf8))
        log.info("serving \(accuracy.rawValue)-accuracy map on http://\(listen.host):\(server.port)/ from \(configuration.subscribeEndpoint)")
        do { try server.run() } catch {
            log.error(error.message)
            return 1
        }
        let stats = server.statistics
        log.info("stopped: \(stats.connectionsAccepted) connections, \(stats.streamsOpened) streams, \(stats.eventsSent) events sent, "
                 + "\(stats.badRequests) bad requests, \(stats.notFound) not found, \(stats.refusedBusy) refused busy, "
                 + "\(stats.requestTimeouts) timeouts, \(stats.slowClientsDropped) slow clients dropped")
        return 0
    }
}

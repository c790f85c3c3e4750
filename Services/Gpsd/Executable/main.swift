import Foundation
import LocusBus
import LocusService
import LocusGpsd
import LocusNet
import LocusProtocol

// locus-gpsd: Locus's fused position as a gpsd server (and a NMEA socket for GeoClue); see docs/gpsd.md.
// The defaults `--help` prints, from the configuration that holds them.
let defaults = GpsdConfiguration()
let spec = CommandLineSpec(
    program: "locus-gpsd",
    summary: "serve Locus's fused position with gpsd's JSON protocol, and NMEA for GeoClue",
    usage: "locus-gpsd [--listen 127.0.0.1:2947] [--device ID]… [--approx] [--nmea-socket PATH] [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--listen", value: "HOST:PORT", help: "address to serve gpsd's protocol on (IPv4)", default: "127.0.0.1:2947"),
        OptionSpec("--allow-remote", help: "allow --listen on an address other than loopback"),
        OptionSpec("--device", value: "ID", help: "serve this device (repeatable); default: the first --max-devices devices seen", repeatable: true),
        OptionSpec("--max-devices", value: "N", help: "most devices served when none is named (gpsd clients read at most 4)", default: OptionDefault.text(defaults.maximumDevices)),
        OptionSpec("--approx", help: "serve only location.approx.* (the reduced-accuracy grid) and read nothing else"),
        OptionSpec("--nmea-socket", value: "PATH", help: "also stream NMEA of the first device on this Unix socket (GeoClue's nmea-socket)"),
        OptionSpec("--nmea-socket-mode", value: "OCTAL", help: "permissions of the NMEA socket", default: "0666"),
        OptionSpec("--max-clients", value: "N", help: "open client connections at once; more are refused", default: OptionDefault.text(defaults.maximumClients)),
        OptionSpec("--max-queue-bytes", value: "N", help: "report bytes queued for one client before it is dropped as too slow", default: OptionDefault.text(defaults.maximumQueuedBytes)),
    ],
    footer: """
    Subscribes to location.fused.* (with --approx: location.approx.*) and location.raw.* (satellite
    counts); each Locus device is the gpsd device locus://<id>. Publishes only health.gpsd and
    error.gpsd. Try: gpspipe -w 127.0.0.1:2947, cgps, or GeoClue with nmea-socket. See docs/gpsd.md.
    """)
let options = ServiceProgram.parseOrExit(spec)
let program = spec.program
let settings = RuntimeSettings(service: GpsdLogic.service, program: program, options: options)
let log = ServiceLog(name: program, minimum: settings.logLevel)

var configuration = GpsdConfiguration()
configuration.revision = "locus-gpsd \(ServiceProgram.version)"
configuration.stream = options.flag("--approx") ? .approx : .fused
configuration.devices = []
for device in options.strings("--device") where !configuration.devices.contains(device) {
    guard Topic.isValidID(device) else { ServiceProgram.usageFailure(program, "--device '\(device)' is not a valid device id") }
    configuration.devices.append(device)
}
do throws(UsageError) {
    if let count = try options.int("--max-devices") {
        guard count > 0 else { throw UsageError("--max-devices must be positive") }
        configuration.maximumDevices = max(count, configuration.devices.count)
    }
    if let count = try options.int("--max-clients") {
        guard count > 0 else { throw UsageError("--max-clients must be positive") }
        configuration.maximumClients = count
    }
    if let bytes = try options.int("--max-queue-bytes") {
        guard bytes >= 4096 else { throw UsageError("--max-queue-bytes must be at least 4096") }
        configuration.maximumQueuedBytes = bytes
    }
} catch { ServiceProgram.usageFailure(program, error.message) }
guard let listen = ListenAddress(parsing: options.string("--listen") ?? "") else {
    ServiceProgram.usageFailure(program, "--listen expects HOST:PORT with an IPv4 host")
}
guard listen.isLoopback || options.flag("--allow-remote") else {
    ServiceProgram.usageFailure(program, "--listen \(listen) is not loopback; add --allow-remote to serve other hosts")
}
guard let socketMode = mode_t(options.string("--nmea-socket-mode") ?? "", radix: 8), socketMode <= 0o777 else {
    ServiceProgram.usageFailure(program, "--nmea-socket-mode expects an octal mode such as 0660")
}

let statistics = GpsdStatistics()
let feedSignal = Wakeup()
let feed = UpdateFeed(capacity: configuration.feedCapacity) { feedSignal.signal() }
let runtime = ServiceRuntime(settings: settings, logic: GpsdLogic(configuration: configuration, feed: feed, statistics: statistics))
let problems = runtime.makeInjector(capacity: 1000)

var listeners: [(listener: Listener, kind: ClientKind)] = []
do {
    listeners.append((try Listener.tcp(listen), .gpsd))
    if let path = options.string("--nmea-socket") { listeners.append((try Listener.unix(path: path, mode: socketMode), .nmeaStream)) }
} catch {
    log.error(error.message)
    exit(1)
}
let server = GpsdServer(configuration: configuration, listeners: listeners, feed: feed, feedSignal: feedSignal,
                        statistics: statistics, problems: problems, log: log)
server.start()
let served = configuration.devices.isEmpty ? "the first \(configuration.maximumDevices) devices seen" : configuration.devices.joined(separator: " ")
log.info("serving \(configuration.stream.rawValue) fixes of \(served) with gpsd's protocol on \(listeners[0].listener.description)"
         + (listeners.count > 1 ? ", NMEA on \(listeners[1].listener.description)" : ""))
let status = runtime.run()
server.stop()
exit(status)

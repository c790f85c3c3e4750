import Foundation
import LocusBus
import LocusService
import LocusMetrics
import LocusNet

// locus-metrics: every service's health, notification deliveries, region events and fix age in
// Prometheus's text format at /metrics, with /healthz and /readyz; see docs/metrics.md.
let spec = CommandLineSpec(
    program: "locus-metrics",
    summary: "export the whole stack's health and activity to Prometheus",
    usage: "locus-metrics [--listen 127.0.0.1:9470] [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--listen", value: "HOST:PORT", help: "address of /metrics, /healthz and /readyz (IPv4)", default: "127.0.0.1:9470"),
        OptionSpec("--allow-remote", help: "allow --listen on an address other than loopback (a Prometheus on another host)"),
        OptionSpec("--max-devices", value: "N", help: "most devices whose fix age is exported (the oldest is dropped)", default: OptionDefault.text(MetricsBoard.defaultMaximumDevices)),
        OptionSpec("--stale-after", value: "SECONDS", help: "a service whose health is older is reported down", default: OptionDefault.text(MetricsBoard.defaultStaleAfterSeconds)),
    ],
    footer: """
    Subscribes to health.*, notify.*, region.event.*, location.fused.* and error.*; publishes only
    health.metrics. Scrape it: curl -s http://127.0.0.1:9470/metrics. See docs/metrics.md.
    """)
let options = ServiceProgram.parseOrExit(spec)
let program = spec.program
let settings = RuntimeSettings(service: MetricsLogic.service, program: program, options: options)
let log = ServiceLog(name: program, minimum: settings.logLevel)

guard let listen = ListenAddress(parsing: options.string("--listen") ?? "") else {
    ServiceProgram.usageFailure(program, "--listen expects HOST:PORT with an IPv4 host")
}
guard listen.isLoopback || options.flag("--allow-remote") else {
    ServiceProgram.usageFailure(program, "--listen \(listen) is not loopback; add --allow-remote to serve other hosts")
}
let maximumDevices: Int
let staleAfter: Double
do {
    maximumDevices = try options.int("--max-devices") ?? MetricsBoard.defaultMaximumDevices
    staleAfter = try options.double("--stale-after") ?? MetricsBoard.defaultStaleAfterSeconds
} catch { ServiceProgram.usageFailure(program, error.message) }
guard maximumDevices > 0 else { ServiceProgram.usageFailure(program, "--max-devices must be positive") }
guard staleAfter > 0, staleAfter.isFinite else { ServiceProgram.usageFailure(program, "--stale-after must be a positive number of seconds") }

let board = MetricsBoard(maximumDevices: maximumDevices, staleAfterSeconds: staleAfter)
let router = MetricsRouter(board: board)
let listener: Listener
do { listener = try Listener.tcp(listen) } catch {
    log.error(error.message)
    exit(1)
}
let server = HTTPServer(listener: listener, limits: ServerLimits()) { request in
    router.answer(request, now: Date().timeIntervalSince1970)
}
let served = DispatchSemaphore(value: 0)
let thread = Thread {
    server.run()
    served.signal()
}
thread.name = "metrics-http"
thread.start()
log.info("serving /metrics, /healthz and /readyz on http://\(listener.description)")
let status = ServiceRuntime(settings: settings, logic: MetricsLogic(board: board)).run()
server.stop()
served.wait()
exit(status)

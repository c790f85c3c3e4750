import Foundation
import LocusBus
import LocusService
import LocusFusion

// locus-fusion: one best estimate per device from all its sources (docs/architecture.md).
// The defaults `--help` prints, from the configuration that holds them.
let defaults = FusionConfiguration()
let spec = CommandLineSpec(
    program: "locus-fusion",
    summary: "fuses every device's raw fixes into one estimate, plus approx, significant-change and visit streams",
    usage: "locus-fusion [--state DIR] [--approx-secret-file FILE] [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--state", value: "DIR", help: "directory for the last known location of each device (none: not kept)"),
        OptionSpec("--approx-secret-file", value: "FILE", help: "secret for location.approx offsets (mode 0600; created when missing; default DIR/approx.secret)"),
        OptionSpec("--approx-cell", value: "METRES", help: "cell size of the reduced-accuracy grid", default: OptionDefault.text(ApproximateLocation.defaultCellSizeMeters)),
        OptionSpec("--approx-period", value: "SECONDS", help: "how long one reduced-accuracy point holds", default: OptionDefault.text(ApproximateLocation.defaultPeriodSeconds)),
        OptionSpec("--cache-validity", value: "SECONDS", help: "republish a stored location on start when younger than this", default: OptionDefault.text(defaults.cacheValiditySeconds)),
        OptionSpec("--visit-stay", value: "SECONDS", help: "time within the visit radius before an arrival", default: OptionDefault.text(defaults.visitMinimumStaySeconds)),
        OptionSpec("--visit-radius", value: "METRES", help: "radius a stay must keep to", default: OptionDefault.text(defaults.visitRadiusMeters)),
        OptionSpec("--max-speed", value: "M/S", help: "implied speed beyond which a fix is an impossible jump", default: OptionDefault.text(defaults.screen.maximumSpeedMetersPerSecond)),
        OptionSpec("--late-limit", value: "SECONDS", help: "a fix older than its device's newest by more than this is refused; younger, it is history", default: OptionDefault.text(defaults.lateLimitSeconds)),
        OptionSpec("--clock-fault", value: "SECONDS", help: "a fix time further behind its arrival is a clock fault, re-timed by arrival", default: OptionDefault.text(defaults.clockFaultBehindSeconds)),
        OptionSpec("--max-future", value: "SECONDS", help: "…and so is one further ahead of its arrival", default: OptionDefault.text(defaults.maximumFutureSeconds)),
        OptionSpec("--max-devices", value: "N", help: "devices kept; fixes of further devices are refused (tooManyDevices)", default: OptionDefault.text(defaults.maximumDevices)),
    ],
    footer: """
    Subscribes to location.raw.*, control.* and motion.*; publishes location.fused.<device>,
    location.approx.<device>, location.significant.<device>, location.late.<device> (real fixes
    that came after newer ones) and visit.<device>; problems go to error.fusion. See docs/fusion.md for the filter and the reduced-accuracy scheme.
    """)
let options = ServiceProgram.parseOrExit(spec)
let settings = RuntimeSettings(service: "fusion", program: "locus-fusion", options: options)
let log = ServiceLog(name: "locus-fusion", minimum: settings.logLevel)

var configuration = FusionConfiguration()
let approxCell: Double
let approxPeriod: Double
do {
    approxCell = try options.double("--approx-cell") ?? ApproximateLocation.defaultCellSizeMeters
    approxPeriod = try options.double("--approx-period") ?? ApproximateLocation.defaultPeriodSeconds
    configuration.cacheValiditySeconds = try options.double("--cache-validity") ?? configuration.cacheValiditySeconds
    configuration.visitMinimumStaySeconds = try options.double("--visit-stay") ?? configuration.visitMinimumStaySeconds
    configuration.visitRadiusMeters = try options.double("--visit-radius") ?? configuration.visitRadiusMeters
    configuration.screen.maximumSpeedMetersPerSecond = try options.double("--max-speed") ?? configuration.screen.maximumSpeedMetersPerSecond
    configuration.lateLimitSeconds = try options.double("--late-limit") ?? configuration.lateLimitSeconds
    configuration.clockFaultBehindSeconds = try options.double("--clock-fault") ?? configuration.clockFaultBehindSeconds
    configuration.maximumFutureSeconds = try options.double("--max-future") ?? configuration.maximumFutureSeconds
    configuration.maximumDevices = try options.int("--max-devices") ?? configuration.maximumDevices
} catch {
    ServiceProgram.usageFailure("locus-fusion", error.message)
}
for (name, value) in [("--approx-cell", approxCell), ("--approx-period", approxPeriod), ("--visit-stay", configuration.visitMinimumStaySeconds),
                      ("--visit-radius", configuration.visitRadiusMeters), ("--max-speed", configuration.screen.maximumSpeedMetersPerSecond),
                      ("--late-limit", configuration.lateLimitSeconds), ("--clock-fault", configuration.clockFaultBehindSeconds),
                      ("--max-future", configuration.maximumFutureSeconds)]
    where !(value.isFinite && value > 0) {
    ServiceProgram.usageFailure("locus-fusion", "\(name) must be a positive number")
}
if configuration.maximumDevices < 1 { ServiceProgram.usageFailure("locus-fusion", "--max-devices must be a positive number") }

var store: LastKnownStore?
let stateDirectory = options.string("--state")
if let stateDirectory {
    do { store = try LastKnownStore(directory: URL(fileURLWithPath: stateDirectory)) } catch {
        log.error("cannot use state directory \(stateDirectory): \(error)")
        exit(ServiceProgram.exitConfig)
    }
}

let secretPath = options.string("--approx-secret-file") ?? stateDirectory.map { $0 + "/approx.secret" }
var secret: [UInt8]
if let secretPath {
    do {
        let loaded = try ApproxSecret.loadOrCreate(path: secretPath)
        secret = loaded.secret
        if loaded.created { log.info("created a new approx secret in \(secretPath)") }
        if loaded.openToOthers { log.warn("\(secretPath) is readable by others; chmod 600 it") }
    } catch {
        log.error("\(error)")
        exit(ServiceProgram.exitConfig)
    }
} else {
    secret = ApproxSecret.random(count: 32)
    log.info("no --state or --approx-secret-file: approx points use a secret that lasts until exit")
}
configuration.approx = ApproximateLocation(secret: secret, cellSizeMeters: approxCell, periodSeconds: approxPeriod)
secret = []

let runtime = ServiceRuntime(settings: settings, logic: FusionLogic(configuration: configuration, store: store))
exit(runtime.run())

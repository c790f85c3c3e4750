import Foundation
import LocusBus
import LocusService
import LocusNotifier

// locus-notifier: events into notifications through durable, retried sinks (docs/architecture.md).
// What each option prints as its default and falls back to, from the types that hold it.
let defaults = NotifierConfiguration.defaults
let retryDefaults = RetryPolicy()
let sinkDefaults = SinkOptions()

let spec = CommandLineSpec(
    program: "locus-notifier",
    summary: "turns region events, visits, authorization changes and destination progress into notifications",
    usage: "locus-notifier --sink SINK [--sink SINK...] [--state DIR] [--locale LOCALE] [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--sink", value: "SINK", help: "stdout, jsonl:FILE, exec:CMD, webhook:URL, desktop or mqtt:HOST:PORT (repeatable)", repeatable: true),
        OptionSpec("--state", value: "DIR", help: "directory of the durable outbox (default: a temporary one, lost at exit)"),
        OptionSpec("--locale", value: "LOCALE", help: "message catalog: en, zh-Hans, or one from --catalog", default: MessageCatalog.defaultLocale),
        OptionSpec("--catalog", value: "FILE", help: "JSON catalog {locale: {kind: {title, body}}} overriding built-in texts"),
        OptionSpec("--cooldown", value: "SECONDS", help: "suppress a repeat for the same region, device and kind within this time", default: OptionDefault.text(defaults.cooldownSeconds)),
        OptionSpec("--merge-window", value: "SECONDS", help: "merge a device's region entries within this window into one notification", default: OptionDefault.text(defaults.mergeWindowSeconds)),
        OptionSpec("--progress-step", value: "METRES", help: "distance between destination progress notifications", default: OptionDefault.text(defaults.progressStepMeters)),
        OptionSpec("--arrival-radius", value: "METRES", help: "default destination arrival radius", default: OptionDefault.text(defaults.arrivalRadiusMeters)),
        OptionSpec("--drain-timeout", value: "SECONDS", help: "at the end of --stdio input, how long to wait for sinks", default: OptionDefault.text(defaults.drainTimeoutSeconds)),
        OptionSpec("--retry-initial", value: "SECONDS", help: "first retry delay (doubles per attempt, with jitter)", default: OptionDefault.text(retryDefaults.initialDelaySeconds)),
        OptionSpec("--retry-max", value: "SECONDS", help: "longest retry delay", default: OptionDefault.text(retryDefaults.maximumDelaySeconds)),
        OptionSpec("--exec-timeout", value: "SECONDS", help: "kill an exec sink command after this long", default: OptionDefault.text(sinkDefaults.execTimeoutSeconds)),
        OptionSpec("--http-timeout", value: "SECONDS", help: "webhook and MQTT timeout per attempt", default: OptionDefault.text(sinkDefaults.httpTimeoutSeconds)),
        OptionSpec("--no-replay", help: "on start, do not ask the bus for the events published while the notifier was down"),
        OptionSpec("--replay-margin", value: "SECONDS", help: "replay from this long before the last event received", default: OptionDefault.text(ReplaySettings(requester: "").marginSeconds)),
        OptionSpec("--mqtt-user", value: "USER", help: "OwnTracks user in owntracks/USER/DEVICE/event", default: sinkDefaults.mqttUser),
    ] + SinkOptions.transportOptions,
    footer: """
    Subscribes to region.event.*, visit.*, auth.status.*, location.fused.* and notify.request;
    records every delivery on notify.<sink> (sinks are named by kind: jsonl, jsonl-2, ...) and
    problems on error.notifier. See docs/notifier.md.
    """)
let options = ServiceProgram.parseOrExit(spec)
let program = "locus-notifier"
var settings = RuntimeSettings(service: NotifierLogic.service, program: program, options: options)
settings.tickIntervalSeconds = 0.2
let log = ServiceLog(name: program, minimum: settings.logLevel)

func positive(_ name: String, _ fallback: Double, allowZero: Bool = false) -> Double {
    let value: Double
    do { value = try options.double(name) ?? fallback } catch { ServiceProgram.usageFailure(program, error.message) }
    guard value.isFinite && (value > 0 || (allowZero && value == 0)) else {
        ServiceProgram.usageFailure(program, "\(name) must be a \(allowZero ? "non-negative" : "positive") number")
    }
    return value
}

let specs: [SinkSpec]
do { specs = try options.strings("--sink").map { text throws(CatalogError) in try SinkSpec(parsing: text) } } catch {
    ServiceProgram.usageFailure(program, error.message)
}
if specs.isEmpty { ServiceProgram.usageFailure(program, "give at least one --sink") }

let catalog: MessageCatalog
do {
    catalog = try MessageCatalog(locale: options.string("--locale") ?? MessageCatalog.defaultLocale,
                                 userFile: options.string("--catalog").map { URL(fileURLWithPath: $0) })
} catch {
    log.error(error.message)
    exit(ServiceProgram.exitConfig)
}

var configuration = NotifierConfiguration(catalog: catalog)
configuration.cooldownSeconds = positive("--cooldown", defaults.cooldownSeconds, allowZero: true)
configuration.mergeWindowSeconds = positive("--merge-window", defaults.mergeWindowSeconds, allowZero: true)
configuration.progressStepMeters = positive("--progress-step", defaults.progressStepMeters)
configuration.arrivalRadiusMeters = positive("--arrival-radius", defaults.arrivalRadiusMeters)
configuration.drainTimeoutSeconds = positive("--drain-timeout", defaults.drainTimeoutSeconds, allowZero: true)
// On NATS a durable consumer resumes where the notifier stopped: no replay request is needed.
if !settings.stdio && !settings.usesNATS && !options.flag("--no-replay") {
    var replay = ReplaySettings(requester: "notifier-\(getpid())")
    replay.marginSeconds = positive("--replay-margin", replay.marginSeconds, allowZero: true)
    configuration.replay = replay
}
let policy = RetryPolicy(initialDelaySeconds: positive("--retry-initial", retryDefaults.initialDelaySeconds),
                         maximumDelaySeconds: positive("--retry-max", retryDefaults.maximumDelaySeconds))
var sinkOptions = SinkOptions()
sinkOptions.execTimeoutSeconds = positive("--exec-timeout", sinkDefaults.execTimeoutSeconds)
sinkOptions.httpTimeoutSeconds = positive("--http-timeout", sinkDefaults.httpTimeoutSeconds)
sinkOptions.mqttUser = options.string("--mqtt-user") ?? sinkDefaults.mqttUser
sinkOptions.stdoutToStandardError = settings.stdio
do { try sinkOptions.applyTransport(options) } catch { ServiceProgram.usageFailure(program, error.message) }

let directory: URL
var temporary: URL?
if let state = options.string("--state") {
    directory = URL(fileURLWithPath: state)
} else {
    temporary = FileManager.default.temporaryDirectory.appendingPathComponent("locus-notifier-\(getpid())")
    directory = temporary!
    log.info("no --state: the outbox lives in \(directory.path) and is removed at exit")
}

let delivery = DeliveryService(directory: directory, specs: specs, options: sinkOptions, policy: policy)
var logic: NotifierLogic
do {
    logic = try NotifierLogic(configuration: configuration, outbox: Outbox(directory: directory), delivery: delivery)
    // The runtime holds each batch's messages until flush: one commit and one delivery per batch.
    logic.commitsOnFlush = true
} catch {
    log.error("cannot open the outbox in \(directory.path): \(error)")
    exit(ServiceProgram.exitConfig)
}
delivery.start()
log.info("sinks: \(zip(SinkSpec.names(specs), options.strings("--sink")).map { "\($0)=\($1)" }.joined(separator: " ")); locale \(catalog.locale)")
let runtime = ServiceRuntime(settings: settings, logic: logic)
if !settings.stdio { delivery.publishReports(through: runtime.makeInjector()) }
let status = runtime.run()
if let temporary { try? FileManager.default.removeItem(at: temporary) }
exit(status)

import Foundation
import LocusBroker
import LocusBus
import LocusProtocol
import LocusService

// locus-bus: the broker every other program connects to (docs/architecture.md).
let spec = CommandLineSpec(
    program: "locus-bus",
    summary: "the Locus message bus: XSUB/XPUB proxy with a last-value cache",
    usage: "locus-bus [--pub ENDPOINT] [--sub ENDPOINT] [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--hwm", value: "N", help: "per-peer queue bound in messages; losses beyond it are counted", default: OptionDefault.text(BrokerConfiguration.defaults.highWaterMark)),
        OptionSpec("--cache-capacity", value: "N", help: "most distinct topics kept in the last-value cache", default: OptionDefault.text(BrokerConfiguration.defaults.cacheCapacity)),
        OptionSpec("--replay-prefixes", value: "LIST", help: "comma-separated event topic prefixes kept for bus.replay (empty: no replay)",
                   default: ReplayRing.defaultPrefixes.joined(separator: ",")),
        OptionSpec("--replay-capacity", value: "N", help: "most event messages kept for bus.replay", default: "100000"),
        OptionSpec("--replay-seconds", value: "SECONDS", help: "oldest event (since the bus received it) bus.replay re-sends", default: "3600"),
        OptionSpec("--allow", value: "FILE", help: "allow-list JSON (clients, keys, roles, manifests): turns on authorization"),
        OptionSpec("--curve-secret", value: "FILE", help: "the bus's keypair file (locus keys gen): tcp endpoints use CURVE + ZAP"),
        OptionSpec("--state", value: "DIR", help: "directory for auth-state.json and replay-ring.log (authorization and the bus.replay ring survive restarts); without it authorization is kept in the user's state directory ($XDG_STATE_HOME/locus or ~/.local/state/locus) for the default bus, else beside the ipc endpoints"),
        OptionSpec("--grant-local", value: "LEVEL", help: "single-user host policy: decide requests from clients named by id (no --allow) at once, up to whenInUse or always"),
        OptionSpec("--restart-grace", value: "SECONDS", help: "after a restart (saved ring found), wait this long before taking publishers' messages, so subscribers reconnect first", default: OptionDefault.text(BrokerConfiguration.defaults.restartGraceSeconds)),
        OptionSpec("--local-pub", value: "ENDPOINT", help: "also bind this (ipc) publisher endpoint, NULL security, trusted local identity"),
        OptionSpec("--local-sub", value: "ENDPOINT", help: "also bind this (ipc) subscriber endpoint, NULL security, trusted local identity"),
    ],
    footer: """
    Publishers connect to the pub endpoint, subscribers to the sub endpoint. On one host the
    defaults are ipc sockets under $XDG_RUNTIME_DIR/locus (or /tmp/locus-$UID); over TCP use
    e.g. --pub tcp://*:5560 --sub tcp://*:5561.
    With --stdio the bus is a pass-through that checks framing: valid text-form lines are
    copied to stdout, malformed ones are reported as error.bus lines.
    """)
let options = ServiceProgram.parseOrExit(spec)
let settings = RuntimeSettings(service: "bus", program: "locus-bus", options: options)
let log = ServiceLog(name: "locus-bus", minimum: settings.logLevel)

if settings.stdio {
    let runtime = ServiceRuntime(settings: settings, logic: PassThrough())
    exit(runtime.run())
}

var configuration = BrokerConfiguration(pubEndpoint: settings.endpoints.pub, subEndpoint: settings.endpoints.sub)
do {
    configuration.highWaterMark = (try options.int("--hwm")).map { Int32(clamping: $0) } ?? configuration.highWaterMark
    configuration.cacheCapacity = try options.int("--cache-capacity") ?? configuration.cacheCapacity
    if let list = options.string("--replay-prefixes") {
        configuration.replayPrefixes = list.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    configuration.replayCapacity = try options.int("--replay-capacity") ?? ReplayRing.defaultCapacity
    configuration.replayMaxAgeSeconds = try options.double("--replay-seconds") ?? ReplayRing.defaultMaxAgeSeconds
    configuration.restartGraceSeconds = try options.double("--restart-grace") ?? configuration.restartGraceSeconds
    guard configuration.restartGraceSeconds.isFinite, configuration.restartGraceSeconds >= 0 else {
        ServiceProgram.usageFailure("locus-bus", "--restart-grace must be ≥ 0")
    }
    guard configuration.replayCapacity >= 0, configuration.replayMaxAgeSeconds.isFinite, configuration.replayMaxAgeSeconds > 0 else {
        ServiceProgram.usageFailure("locus-bus", "--replay-capacity must be ≥ 0 and --replay-seconds > 0")
    }
} catch {
    ServiceProgram.usageFailure("locus-bus", error.message)
}
configuration.stateDirectory = options.string("--state")
configuration.extraPubEndpoints = options.strings("--local-pub")
configuration.extraSubEndpoints = options.strings("--local-sub")
let stateDirectory = BusStateDirectory.resolve(explicit: options.string("--state"), subEndpoints: configuration.subEndpoints)
configuration.authorization.stateDirectory = stateDirectory.path
configuration.authorization.stateDirectoryOrigin = stateDirectory.origin
if let level = options.string("--grant-local") {
    guard level == "whenInUse" || level == "always" else {
        ServiceProgram.usageFailure("locus-bus", "--grant-local takes whenInUse or always, not '\(level)'")
    }
    guard options.string("--allow") == nil else {
        ServiceProgram.usageFailure("locus-bus", "--grant-local is for a bus without --allow (use autoGrant in the allow-list)")
    }
    configuration.authorization.localGrant = AuthorizationStatus(rawValue: level)
}
if let allowPath = options.string("--allow") {
    do {
        let list = try AllowList.load(path: allowPath)
        for problem in list.problems { log.error("allow-list \(allowPath): \(problem)") }
        configuration.authorization.allowList = list
        if let keyFile = options.string("--curve-secret") { configuration.authorization.serverKeys = try CurveKeyFile.readPair(path: keyFile) }
    } catch {
        log.error("cannot start: \(error)")
        exit(ServiceProgram.exitConfig)
    }
} else if options.string("--curve-secret") != nil {
    ServiceProgram.usageFailure("locus-bus", "--curve-secret needs --allow FILE (without it CURVE only encrypts)")
}
configuration.healthIntervalSeconds = settings.healthIntervalSeconds
configuration.source = settings.source

let context = ZMQContext()
let signals = ServiceProgram.handleTerminationSignals { _ in
    log.info("stopping on signal")
    context.shutdown()
}
let broker = Broker(configuration: configuration, log: log)
do {
    try broker.run(context: context, ready: ServiceProgram.notifyReady)
} catch {
    log.error("cannot run: \(error)")
    exit(1)
}
signals.forEach { $0.cancel() }
exit(0)

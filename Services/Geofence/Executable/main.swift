import Foundation
import LocusBus
import LocusService
import LocusGeofence
import LocusProtocol

// locus-geofence: region monitoring (docs/architecture.md).
let spec = CommandLineSpec(
    program: "locus-geofence",
    summary: "region monitoring: circles and polygons, enter/exit/dwell, durable state",
    usage: "locus-geofence [--db FILE] [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--db", value: "FILE", help: "SQLite database for regions and states (none: in memory only; on NATS, the LOCUS_GEOFENCE key-value bucket)"),
        OptionSpec("--min-radius", value: "METRES", help: "smaller circles are widened to this", default: OptionDefault.text(GeofenceConfiguration().minimumRadiusMeters)),
        OptionSpec("--max-radius", value: "METRES", help: "larger circles fail with radiusTooLarge", default: OptionDefault.text(GeofenceConfiguration().maximumRadiusMeters)),
        OptionSpec("--quota", value: "N", help: "regions per owner (20 reproduces Core Location)", default: OptionDefault.text(GeofenceConfiguration().regionsPerOwner)),
        OptionSpec("--debounce", value: "SECONDS", help: "fix time a new state must hold before it is reported", default: OptionDefault.text(GeofenceConfiguration().debounceSeconds)),
        OptionSpec("--confidence", value: "K", help: "a fix decides only when K × hacc metres from the boundary", default: OptionDefault.text(GeofenceConfiguration().confidenceFactor)),
        OptionSpec("--default-authorization", value: "STATUS",
                   help: "status assumed for owners without auth.status (e.g. always, until an authorization service runs)"),
    ],
    footer: """
    Reads region.cmd, auth.status.* and location.fused.*; writes region.state.<owner> and
    region.event.<owner>. With --stdio the input is text-form lines and time is fix time.
    """)
let options = ServiceProgram.parseOrExit(spec)
let settings = RuntimeSettings(service: "geofence", program: "locus-geofence", options: options)

var configuration = GeofenceConfiguration()
do {
    configuration.minimumRadiusMeters = try options.double("--min-radius") ?? configuration.minimumRadiusMeters
    configuration.maximumRadiusMeters = try options.double("--max-radius") ?? configuration.maximumRadiusMeters
    configuration.regionsPerOwner = try options.int("--quota") ?? configuration.regionsPerOwner
    configuration.debounceSeconds = try options.double("--debounce") ?? configuration.debounceSeconds
    configuration.confidenceFactor = try options.double("--confidence") ?? configuration.confidenceFactor
} catch {
    ServiceProgram.usageFailure("locus-geofence", error.message)
}
guard configuration.minimumRadiusMeters > 0, configuration.maximumRadiusMeters >= configuration.minimumRadiusMeters,
      configuration.regionsPerOwner >= 0, configuration.debounceSeconds >= 0, configuration.confidenceFactor >= 0 else {
    ServiceProgram.usageFailure("locus-geofence", "need 0 < --min-radius ≤ --max-radius and non-negative --quota, --debounce, --confidence")
}
if let text = options.string("--default-authorization") {
    guard let status = AuthorizationStatus(rawValue: text) else {
        ServiceProgram.usageFailure("locus-geofence", "--default-authorization: unknown status '\(text)'")
    }
    configuration.defaultAuthorization = status
}

var logic: GeofenceLogic
do {
    // On NATS without --db, the state lives in the cluster and follows the partition to any host.
    let log = ServiceLog(name: "locus-geofence", minimum: settings.logLevel)
    let persistence: (any GeofencePersistence)? = try options.string("--db").map { try GeofenceDatabase(path: $0) }
        ?? (settings.usesNATS && !settings.stdio ? try GeofenceKeyValueStore(settings: settings, log: log) : nil)
    logic = try GeofenceLogic(configuration: configuration, persistence: persistence)
    // The runtime holds each batch's messages until flush: one transaction per batch.
    logic.commitsOnFlush = true
} catch {
    FileHandle.standardError.write(Data("locus-geofence: cannot open the state: \(error)\n".utf8))
    exit(1)
}
let runtime = ServiceRuntime(settings: settings, logic: logic)
exit(runtime.run())

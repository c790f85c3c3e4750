import Foundation
import LocusBus
import LocusService
import LocusMotion

// locus-motion: strategy by activity, dead reckoning through outages, cached fallback (docs/architecture.md).
// The defaults `--help` prints, from the configuration that holds them.
let defaults = MotionConfiguration()
let spec = CommandLineSpec(
    program: "locus-motion",
    summary: "steers each device by its activity and publishes dead-reckoned or cached positions when fixes stop",
    usage: "locus-motion [options]",
    options: ServiceProgram.commonOptions + [
        OptionSpec("--pause-after", value: "SECONDS", help: "stationary this long pauses updates", default: OptionDefault.text(defaults.pauseAfterSeconds)),
        OptionSpec("--outage-grace", value: "SECONDS", help: "seconds past the expected fix interval before fixes count as lost", default: OptionDefault.text(defaults.outageGraceSeconds)),
        OptionSpec("--dr-min-fixes", value: "N", help: "dead reckoning needs this many good fixes in a row…", default: OptionDefault.text(defaults.cadenceFixes)),
        OptionSpec("--dr-max-interval", value: "SECONDS", help: "…each at most this long after the one before…", default: OptionDefault.text(defaults.cadenceMaximumIntervalSeconds)),
        OptionSpec("--dr-min-speed", value: "M/S", help: "…from a device moving (a moving activity or at least this speed)", default: OptionDefault.text(defaults.movingSpeedMetersPerSecond)),
        OptionSpec("--max-good-hacc", value: "METRES", help: "fused fixes with a larger hacc are not good fixes", default: OptionDefault.text(defaults.maximumGoodHaccMeters)),
        OptionSpec("--dr-max-seconds", value: "SECONDS", help: "dead reckoning gives way to the cached location after this long", default: OptionDefault.text(defaults.deadReckoningMaximumSeconds)),
        OptionSpec("--dr-max-radius", value: "METRES", help: "…or once its radius reaches this", default: OptionDefault.text(defaults.deadReckoningMaximumRadiusMeters)),
        OptionSpec("--cache-interval", value: "SECONDS", help: "seconds between cached-location fixes", default: OptionDefault.text(defaults.cacheIntervalSeconds)),
        OptionSpec("--cache-validity", value: "SECONDS", help: "use the cached location while younger than this", default: OptionDefault.text(defaults.cacheValiditySeconds)),
        OptionSpec("--min-confidence", value: "low|medium|high", help: "activities with less confidence do not change the strategy", default: defaults.minimumConfidence.word),
        OptionSpec("--low-power", help: "start in low-power mode (distance filter ≥ 20 m, accuracy ≥ 100 m)"),
        OptionSpec("--power-supply", value: "DIR", help: "read the battery state here at start", default: PowerSupply.defaultRoot),
        OptionSpec("--devices", value: "ID,…", help: "only these devices are known (default: any)"),
    ],
    footer: """
    Subscribes to motion.*, location.fused.* and control.* (powerMode); publishes control.<device>
    and, when positioning degrades, location.raw.<device> with source dr or cache. Problems and an
    expired cache ("unavailable") go to error.motion. See docs/motion.md.
    """)
let options = ServiceProgram.parseOrExit(spec)
let settings = RuntimeSettings(service: MotionLogic.service, program: "locus-motion", options: options)

var configuration = MotionConfiguration()
do {
    configuration.pauseAfterSeconds = try options.double("--pause-after") ?? configuration.pauseAfterSeconds
    configuration.outageGraceSeconds = try options.double("--outage-grace") ?? configuration.outageGraceSeconds
    configuration.maximumGoodHaccMeters = try options.double("--max-good-hacc") ?? configuration.maximumGoodHaccMeters
    configuration.cadenceFixes = try options.int("--dr-min-fixes") ?? configuration.cadenceFixes
    configuration.cadenceMaximumIntervalSeconds = try options.double("--dr-max-interval") ?? configuration.cadenceMaximumIntervalSeconds
    configuration.movingSpeedMetersPerSecond = try options.double("--dr-min-speed") ?? configuration.movingSpeedMetersPerSecond
    configuration.deadReckoningMaximumSeconds = try options.double("--dr-max-seconds") ?? configuration.deadReckoningMaximumSeconds
    configuration.deadReckoningMaximumRadiusMeters = try options.double("--dr-max-radius") ?? configuration.deadReckoningMaximumRadiusMeters
    configuration.cacheIntervalSeconds = try options.double("--cache-interval") ?? configuration.cacheIntervalSeconds
    configuration.cacheValiditySeconds = try options.double("--cache-validity") ?? configuration.cacheValiditySeconds
} catch {
    ServiceProgram.usageFailure(spec.program, error.message)
}
for (name, value) in [("--pause-after", configuration.pauseAfterSeconds), ("--outage-grace", configuration.outageGraceSeconds),
                      ("--max-good-hacc", configuration.maximumGoodHaccMeters), ("--dr-max-seconds", configuration.deadReckoningMaximumSeconds),
                      ("--dr-max-radius", configuration.deadReckoningMaximumRadiusMeters), ("--cache-interval", configuration.cacheIntervalSeconds),
                      ("--cache-validity", configuration.cacheValiditySeconds),
                      ("--dr-min-fixes", Double(configuration.cadenceFixes)), ("--dr-max-interval", configuration.cadenceMaximumIntervalSeconds),
                      ("--dr-min-speed", configuration.movingSpeedMetersPerSecond)]
    where !(value.isFinite && value > 0) {
    ServiceProgram.usageFailure(spec.program, "\(name) must be a positive number")
}
let confidence = options.string("--min-confidence") ?? defaults.minimumConfidence.word
guard let minimumConfidence = ConfidenceRank(word: confidence) else {
    ServiceProgram.usageFailure(spec.program, "--min-confidence must be low, medium or high, not '\(confidence)'")
}
configuration.minimumConfidence = minimumConfidence
configuration.lowPower = options.flag("--low-power")
if let list = options.string("--devices") {
    configuration.devices = Set(list.split(separator: ",").map(String.init))
}

var logic = MotionLogic(configuration: configuration, ownSource: settings.source)
if !settings.stdio {
    logic.lowPowerBySupply = PowerSupply(root: options.string("--power-supply") ?? PowerSupply.defaultRoot).isLowPower()
}
let runtime = ServiceRuntime(settings: settings, logic: logic)
exit(runtime.run())

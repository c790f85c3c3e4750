import Foundation
import LocusBus
import LocusService
import LocusProvider

// locus-provider PLUGIN [options]: one position source, published on location.raw.<device>.
let spec = CommandLineSpec(program: "locus-provider", summary: "publishes positions from one source on location.raw.<device>",
                           usage: "locus-provider PLUGIN [options]",
                           options: ServiceProgram.commonOptions + ProviderOptions.options, footer: ProviderOptions.footer)
let options = ServiceProgram.parseOrExit(spec)
guard let plugin = options.positionals.first, options.positionals.count == 1 else {
    ServiceProgram.usageFailure(spec.program, "give exactly one plugin: \(ProviderOptions.plugins.joined(separator: ", "))")
}
let device = options.string("--device-id") ?? ProviderOptions.defaultDevice
guard ProviderOptions.isValidDevice(device) else { ServiceProgram.usageFailure(spec.program, "--device-id '\(device)' is not a valid id") }

let source: any PositionSource
do {
    source = try ProviderOptions.makeSource(plugin: plugin, options: options, now: Date().timeIntervalSince1970)
} catch {
    ServiceProgram.usageFailure(spec.program, error.message)
}

var settings = RuntimeSettings(service: "provider", program: spec.program, options: options)
settings.readsInput = !settings.stdio
settings.exitWhenSourcesFinish = ProviderOptions.endsByItself(source)
let status = SourceStatus()
let fusedFixes = (source as? NetworkSource)?.fusedFixes
let runtime = ServiceRuntime(settings: settings, logic: ProviderLogic(device: device, plugin: source.plugin, status: status, fusedFixes: fusedFixes,
                                                                     namesDevices: source.namesItsDevices))
let stop = StopFlag()
let context = SourceContext(device: device, injector: runtime.makeInjector(), stop: stop, status: status)
let thread = Thread { source.run(context) }
thread.name = "provider-\(source.plugin)"
thread.start()
let code = runtime.run()
stop.raise()
exit(code)

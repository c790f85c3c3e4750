public import LocusService

/// The options of `locus-provider wifi` and `locus-provider cell`, and the source they describe.
public enum NetworkOptions {
    public static let options: [OptionSpec] = [
        OptionSpec("--db", value: "FILE", help: "wifi/cell: beacon database (mode 0600; default $XDG_DATA_HOME/locus/beacons.db)"),
        OptionSpec("--no-learn", help: "wifi/cell: never write the database (read-only use; it must exist)"),
        OptionSpec("--scan-interval", value: "SECONDS", help: "wifi/cell: seconds between runs of --command (default 10 for wifi, 30 for cell)"),
        OptionSpec("--scan-timeout", value: "SECONDS", help: "wifi/cell: stop a --command that runs longer", default: "20"),
        OptionSpec("--learn-hacc", value: "METERS", help: "wifi/cell: learn only from fused fixes at least this good", default: "20"),
    ]

    /// Builds the source of the `wifi` or `cell` plugin.
    public static func makeSource(plugin: String, options: ParsedOptions, pacer: ReplayPacer) throws(UsageError) -> NetworkSource {
        let kind: BeaconKind = plugin == "cell" ? .cell : .wifi
        let input: NetworkSource.Input
        switch (options.string("--command"), options.string("--file")) {
        case let (command?, nil):
            let interval = try ProviderOptions.positive(options, "--scan-interval") ?? (kind == .wifi ? 10 : 30)
            let timeout = try ProviderOptions.positive(options, "--scan-timeout") ?? 20
            input = .command(command, intervalSeconds: interval, timeoutSeconds: timeout)
        case let (nil, path?):
            input = .file(path: path)
        default:
            let example = kind == .wifi ? "'iw dev wlan0 scan dump'" : "'mmcli -m 0 --location-get'"
            throw UsageError("\(plugin) needs exactly one of --command (e.g. \(example)) or --file (scan outputs; '-' = stdin)")
        }
        var settings = NetworkLocator.Settings(kind: kind, sourceName: options.string("--source") ?? kind.rawValue)
        settings.learns = !options.flag("--no-learn")
        settings.learnMaximumHacc = try ProviderOptions.positive(options, "--learn-hacc") ?? 20
        return NetworkSource(input: input, databasePath: options.string("--db") ?? BeaconDatabase.defaultPath,
                             settings: settings, pacer: pacer)
    }
}

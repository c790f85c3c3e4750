public import LocusService
import Foundation
import LocusProtocol

/// The command line of `locus-provider PLUGIN [options]`: the options of every plugin,
/// and the translation of parsed options into a `PositionSource`.
public enum ProviderOptions {
    /// The device id unless `--device-id` names one.
    public static let defaultDevice = "local"

    public static let plugins = ["nmea", "gpsd", "gpx", "sim", "fixed", "exec", "motion", "wifi", "cell"] + PhoneOptions.plugins

    public static let options: [OptionSpec] = [
        OptionSpec("--device-id", value: "ID", help: "device the fixes belong to (topic location.raw.ID)", default: defaultDevice),
        OptionSpec("--rate", value: "RATE", help: "'max' replays files as fast as possible instead of in real time"),
        OptionSpec("--source", value: "WORD", help: "the `source` of published locations (default per plugin: gnss, gps, sim)"),
        OptionSpec("--file", value: "FILE", help: "nmea: log to read ('-' = stdin); gpx/sim: GPX file; wifi/cell: scan outputs ('-' = stdin)"),
        OptionSpec("--serial", value: "DEVICE", help: "nmea: serial port, e.g. /dev/ttyUSB0 (reopened after unplug)"),
        OptionSpec("--baud", value: "N", help: "nmea: serial speed", default: "9600"),
        OptionSpec("--tcp", value: "HOST:PORT", help: "nmea: read NMEA from a TCP server (reconnects)"),
        OptionSpec("--udp", value: ":PORT", help: "nmea: read NMEA datagrams on a UDP port"),
        OptionSpec("--date", value: "YYYY-MM-DD", help: "nmea/exec: date for fixes whose sentences carry none (else they are skipped)"),
        OptionSpec("--rollover", value: "auto|correct|keep", help: "nmea/gpsd: repair GPS week-rollover dates (auto: live inputs, not files)", default: "auto"),
        OptionSpec("--host", value: "HOST", help: "gpsd: host", default: "localhost"),
        OptionSpec("--port", value: "PORT", help: "gpsd: port", default: "2947"),
        OptionSpec("--once", help: "gpsd: stop when gpsd closes the connection instead of reconnecting"),
        OptionSpec("--live-since", value: "UNIX", help: "sim: replay as a live receiver whose route began at this wall time; a restart skips what it missed"),
        OptionSpec("--speed", value: "X", help: "gpx/nmea: replay time factor (2 = twice as fast)", default: "1"),
        OptionSpec("--loop", help: "gpx/sim: start over at the end"),
        OptionSpec("--hz", value: "N", help: "gpx: interpolated fixes per second between points; sim: fix rate", default: nil),
        OptionSpec("--mps", value: "M/S", help: "gpx/sim: speed along points that carry no time", default: "1.4"),
        OptionSpec("--start", value: "UNIX", help: "gpx/sim: time of the first point when the file has none"),
        OptionSpec("--hacc", value: "METERS", help: "gpx: accuracy of points without hdop; sim/fixed: accuracy (68%); owntracks/osmand: assumed for reports without one"),
        OptionSpec("--waypoints", value: "LAT,LON;…", help: "sim: route as semicolon-separated points instead of --file"),
        OptionSpec("--seed", value: "N", help: "sim: random seed (same seed, same output)", default: "1"),
        OptionSpec("--bias-sigma", value: "METERS", help: "sim: per-axis sigma of the slowly varying bias", default: "0"),
        OptionSpec("--bias-tau", value: "SECONDS", help: "sim: correlation time of the bias", default: "60"),
        OptionSpec("--outlier-rate", value: "P", help: "sim: probability that a fix is an outlier", default: "0"),
        OptionSpec("--outlier-meters", value: "METERS", help: "sim: typical outlier displacement", default: "200"),
        OptionSpec("--outage", value: "START+SECONDS", help: "sim: no GPS fixes in this window (seconds from the start; repeatable)",
                   repeatable: true),
        OptionSpec("--cold-start", value: "SECONDS", help: "sim: coarse first fixes converging over this time", default: "0"),
        OptionSpec("--cold-hacc", value: "METERS", help: "sim: accuracy of the first cold-start fix", default: "300"),
        OptionSpec("--wifi-hz", value: "N", help: "sim: Wi-Fi fix rate (0 = off)", default: "0"),
        OptionSpec("--wifi-hacc", value: "METERS", help: "sim: Wi-Fi accuracy", default: "30"),
        OptionSpec("--cell-hz", value: "N", help: "sim: cell fix rate (0 = off)", default: "0"),
        OptionSpec("--cell-hacc", value: "METERS", help: "sim: cell accuracy", default: "800"),
        OptionSpec("--duration", value: "SECONDS", help: "sim: stop after this simulated time (default: end of route)"),
        OptionSpec("--lat", value: "DEGREES", help: "fixed: latitude"),
        OptionSpec("--lon", value: "DEGREES", help: "fixed: longitude"),
        OptionSpec("--alt", value: "METERS", help: "fixed: height above the ellipsoid"),
        OptionSpec("--interval", value: "SECONDS", help: "fixed: seconds between fixes", default: "1"),
        OptionSpec("--count", value: "N", help: "fixed: stop after N fixes"),
        OptionSpec("--command", value: "SHELL", help: "exec: command whose stdout is read; wifi/cell: scan command run every --scan-interval"),
        OptionSpec("--format", value: "nmea|text", help: "exec: how to read the command's stdout", default: "nmea"),
        OptionSpec("--timeline", value: "FILE", help: "motion: activity timeline (JSON lines); without it a seeded simulation"),
    ] + NetworkOptions.options + PhoneOptions.options

    public static let footer = """
        Plugins: nmea, gpsd, gpx, sim, fixed, exec, motion, wifi, cell, owntracks, osmand. Examples:
          locus-provider nmea --file drive.log --rate max --stdio
          locus-provider nmea --serial /dev/ttyUSB0 --baud 4800 --device-id truck-7
          locus-provider gpsd --host localhost --port 2947
          locus-provider gpx --file ride.gpx --speed 10 --hz 1
          locus-provider sim --file ride.gpx --hacc 5 --bias-sigma 3 --outage 60+20 --seed 7 --rate max --stdio
          locus-provider fixed --lat 52.52 --lon 13.40 --hacc 10 --interval 5
          locus-provider exec --command 'python3 wifi.py' --format text
          locus-provider wifi --command 'iw dev wlan0 scan dump' --scan-interval 10
          locus-provider cell --no-learn --file cells.log   (outputs of mmcli, each after a '# scan' line)
          locus-provider owntracks --broker mqtt.example.org:8883 --mqtt-ca-file ca.pem --mqtt-username tracker --mqtt-password-file pw
          locus-provider osmand --listen 0.0.0.0:5055 --tokens phones.tokens
        Every plugin obeys control.<device> (distanceFilter, desiredAccuracy, paused, powerMode).
        """

    /// Builds the source a plugin name and its options describe; throws for a bad combination.
    public static func makeSource(plugin: String, options: ParsedOptions, now: Double) throws(UsageError) -> any PositionSource {
        let pacer = ReplayPacer(speed: try options.double("--speed") ?? 1, asFastAsPossible: try rateIsMax(options),
                                liveSince: try options.double("--live-since"))
        let date = try parseDate(options)
        switch plugin {
        case "nmea":
            let inputs = ["--file", "--serial", "--tcp", "--udp"].filter { options.string($0) != nil }
            guard inputs.count == 1 else { throw UsageError("nmea needs exactly one of --file, --serial, --tcp, --udp") }
            let input: NMEASource.Input
            if let path = options.string("--file") {
                input = .file(path: path)
            } else if let path = options.string("--serial") {
                input = .serial(path: path, baud: try options.int("--baud") ?? 9600)
                guard StreamOpeners.baudConstant(try options.int("--baud") ?? 9600) != nil else {
                    throw UsageError("--baud: unsupported rate")
                }
            } else if let address = options.string("--tcp") {
                let (host, port) = try hostPort(address, option: "--tcp")
                input = .tcp(host: host, port: port)
            } else {
                let (_, port) = try hostPort(options.string("--udp") ?? "", option: "--udp")
                input = .udp(port: port)
            }
            return NMEASource(input: input, sourceName: options.string("--source") ?? "gnss", date: date, pacer: pacer,
                              rollover: try rolloverPolicy(options))
        case "gpsd":
            guard let port = try options.int("--port"), (1...65535).contains(port) else { throw UsageError("--port must be 1–65535") }
            return GPSDSource(host: options.string("--host") ?? "localhost", port: port,
                              sourceName: options.string("--source") ?? "gnss", exitOnDisconnect: options.flag("--once"),
                              rollover: try rolloverPolicy(options))
        case "gpx":
            guard let path = options.string("--file") else { throw UsageError("gpx needs --file") }
            return GPXSource(path: path, pacer: pacer, loop: options.flag("--loop"), hz: try positive(options, "--hz"),
                             metersPerSecond: try positive(options, "--mps") ?? 1.4, startTime: try options.double("--start"),
                             defaultHaccMeters: try positive(options, "--hacc") ?? 5, sourceName: options.string("--source") ?? "gps")
        case "sim":
            return try SimOptions.makeSource(options: options, pacer: pacer, now: now)
        case "fixed":
            guard let lat = try options.double("--lat"), let lon = try options.double("--lon"), abs(lat) <= 90, abs(lon) <= 180 else {
                throw UsageError("fixed needs --lat (−90…90) and --lon (−180…180)")
            }
            let location = Location(device: "", source: options.string("--source") ?? "manual", lat: lat, lon: lon,
                                    hacc: try positive(options, "--hacc") ?? 10, alt: try options.double("--alt"))
            let count = try options.int("--count")
            if let count, count < 1 { throw UsageError("--count must be at least 1") }
            return FixedSource(location: location, intervalSeconds: try positive(options, "--interval") ?? 1, count: count)
        case "exec":
            guard let command = options.string("--command") else { throw UsageError("exec needs --command") }
            guard let format = ExecSource.Format(rawValue: options.string("--format") ?? "nmea") else {
                throw UsageError("--format must be nmea or text")
            }
            return ExecSource(command: command, format: format, sourceName: options.string("--source") ?? "gnss", date: date)
        case "motion":
            return try MotionOptions.makeSource(options: options, pacer: pacer, now: now)
        case "wifi", "cell":
            return try NetworkOptions.makeSource(plugin: plugin, options: options, pacer: pacer)
        case "owntracks", "osmand":
            return try PhoneOptions.makeSource(plugin: plugin, options: options)
        default:
            throw UsageError("unknown plugin '\(plugin)'; choose one of \(plugins.joined(separator: ", "))")
        }
    }

    /// Whether the source ends by itself (file, count, route), so the program exits after it.
    public static func endsByItself(_ source: any PositionSource) -> Bool {
        switch source {
        case let nmea as NMEASource: if case .file = nmea.input { return true } else { return false }
        case let gpx as GPXSource: return !gpx.loop
        case let sim as SimSource: return !sim.configuration.loop
        case let fixed as FixedSource: return fixed.count != nil
        case is ExecSource: return true
        case let gpsd as GPSDSource: return gpsd.exitOnDisconnect
        case is MotionSource: return true
        case let network as NetworkSource: if case .file = network.input { return true } else { return false }
        default: return false
        }
    }

    /// Whether `id` may name a device in a topic (docs/protocol.md ids).
    public static func isValidDevice(_ id: String) -> Bool { Topic.isValidID(id) }

    static func rateIsMax(_ options: ParsedOptions) throws(UsageError) -> Bool {
        switch options.string("--rate") {
        case nil, "realtime": return false
        case "max": return true
        case let other?: throw UsageError("--rate must be 'max' or 'realtime', not '\(other)'")
        }
    }

    static func rolloverPolicy(_ options: ParsedOptions) throws(UsageError) -> WeekRollover.Policy {
        let text = options.string("--rollover") ?? "auto"
        guard let policy = WeekRollover.Policy(rawValue: text) else {
            throw UsageError("--rollover must be auto, correct or keep, not '\(text)'")
        }
        return policy
    }

    static func parseDate(_ options: ParsedOptions) throws(UsageError) -> NMEACivilDate? {
        guard let text = options.string("--date") else { return nil }
        guard let date = NMEADateFallback.parse(text) else { throw UsageError("--date expects YYYY-MM-DD, got '\(text)'") }
        return date
    }

    static func positive(_ options: ParsedOptions, _ name: String) throws(UsageError) -> Double? {
        guard let value = try options.double(name) else { return nil }
        guard value > 0 else { throw UsageError("\(name) must be greater than 0") }
        return value
    }

    static func hostPort(_ text: String, option: String) throws(UsageError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw UsageError("\(option) expects HOST:PORT (or :PORT), got '\(text)'")
        }
        let host = String(text[..<colon])
        return (host.isEmpty ? "localhost" : host, port)
    }
}

import Foundation
import LocusBus
import LocusService

/// `locus`: the command line. Each subcommand is a small type in its own file.
public enum LocusCommand {
    static let usage = """
    locus — the Locus command line

    Usage: locus COMMAND [options]

    Commands:
      tail [PREFIX...]      print bus messages live in the text form (--json: bodies only)
      pub TOPIC BODY        publish one message (envelope fields are filled in when absent)
      destination set|clear set a destination: the notifier reports progress and arrival
      up                    start the bus and every installed service; restart any that crash
      demo                  run the stack on a simulated drive past regions; summary and SVG map
      bench WHAT            benchmarks: codec, bus, nmea, fusion, geofence, all
      plot [FILE...]        draw a recorded stream as an SVG map (tracks, accuracy, regions, events)
      coord [LAT LON]       convert between WGS-84, GCJ-02 and BD-09 (China map datums)
      doctor                check the bus, each service's health, the clock and file permissions
      map                   serve a live map of devices, regions and events to a browser
      auth ACTION           authorization: pending, status, grant, deny, restrict, revoke
      keys gen NAME         write a CURVE keypair (NAME.key 0600, NAME.pub)
      regions ACTION        add, remove, list, import FILE.geojson, export monitored regions
      beacons ACTION        the Wi-Fi/cell database of network positioning: import-cells FILE, stats
      version               print the version

    Every command takes --help. Bus endpoints come from --pub/--sub, else LOCUS_PUB/LOCUS_SUB,
    else the per-user ipc defaults.
    """

    public static func main(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            FileHandle.standardError.write(Data(usage.utf8))
            return ServiceProgram.exitUsage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "tail": return TailCommand.run(rest)
        case "pub": return PubCommand.run(rest)
        case "destination": return DestinationCommand.run(rest)
        case "up": return UpCommand.run(rest)
        case "demo": return DemoCommand.run(rest)
        case "map": return MapCommand.run(rest)
        case "bench": return BenchHandover.run(rest)
        case "coord": return CoordCommand.run(rest)
        case "plot": return PlotCommand.run(rest)
        case "doctor": return DoctorCommand.run(rest)
        case "auth": return AuthCommand.run(rest)
        case "keys": return KeysCommand.run(rest)
        case "regions": return RegionsCommand.run(rest)
        case "beacons": return BeaconsCommand.run(rest)
        case "version", "--version": print("locus \(ServiceProgram.version)"); return 0
        case "help", "--help", "-h": print(usage, terminator: ""); return 0
        default:
            FileHandle.standardError.write(Data("locus: unknown command '\(command)'\n\n\(usage)".utf8))
            return ServiceProgram.exitUsage
        }
    }
}

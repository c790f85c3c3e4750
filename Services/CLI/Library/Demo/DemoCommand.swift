import Foundation
import LocusProvider
import LocusBus
import LocusService
import LocusGeo
import LocusProtocol

/// `locus demo`: the whole stack on private endpoints and a temporary state directory. A
/// simulated car drives past the embedded regions (with a GNSS outage on the way); the
/// demo prints each fix, event and notification as it happens, ends by itself with a
/// summary and an SVG map, and exits 0 when it saw at least one enter, one exit and one
/// notification.
enum DemoCommand {
    static let spec = CommandLineSpec(
        program: "locus demo",
        summary: "run the whole stack on a simulated drive past a few regions and summarise what happened",
        usage: "locus demo [--bin DIR] [--output DIR] [--follow]",
        options: [
            OptionSpec("--bin", value: "DIR", help: "where the locus-* executables are (default: beside locus)"),
            OptionSpec("--output", value: "DIR", help: "where to write the recorded stream and the SVG map", default: "locus-demo"),
            OptionSpec("--follow", help: "keep driving the route in a loop until Ctrl-C"),
            OptionSpec("--locale", value: "LOCALE", help: "notification language: en or zh-Hans", default: "en"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Needs locus-bus, locus-provider, locus-fusion, locus-geofence and locus-notifier (locus-motion is used when present).")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let log = ServiceLog(name: "locus demo")
        let directory = options.string("--bin") ?? Supervisor.ownDirectory
        let output = options.string("--output") ?? "locus-demo"
        let follow = options.flag("--follow")
        let needed = ["locus-bus", "locus-provider", "locus-fusion", "locus-geofence", "locus-notifier"]
        let missing = needed.filter { !FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
        guard missing.isEmpty else {
            log.error("missing \(missing.joined(separator: ", ")) in \(directory) (build with `swift build -c release`)")
            return 69
        }
        let work = NSTemporaryDirectory() + "locus-demo-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: work) }
        do {
            try FileManager.default.createDirectory(atPath: work + "/state", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            log.error("cannot create directories: \(error.localizedDescription)")
            return 73
        }
        let endpoints = BusEndpoints(pub: "ipc://\(work)/pub", sub: "ipc://\(work)/sub")
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_PUB"] = endpoints.pub
        environment["LOCUS_SUB"] = endpoints.sub
        let supervisor = Supervisor(log: ServiceLog(name: "locus demo", minimum: .warn), environment: environment)
        let stopRequested = StopFlag()
        let signals = ServiceProgram.handleTerminationSignals { _ in stopRequested.raise() }
        defer { signals.forEach { $0.cancel() } }
        let supervising = Thread { supervisor.run() }
        let quiet = ["--log-level", "warn"]
        var recorder: DemoRecorder?
        do {
            try supervisor.start(.init(name: "locus-bus", executable: directory + "/locus-bus", arguments: quiet))
            supervising.start()
            guard UpCommand.waitForBus(endpoints.sub, log: log) else { throw DemoFailure("the bus did not start") }
            recorder = try DemoRecorder(endpoints: endpoints, file: output + "/run.log")
            let services: [(String, [String])] = [
                ("locus-fusion", ["--state", work + "/state/fusion"]),
                ("locus-geofence", ["--db", work + "/state/regions.sqlite", "--default-authorization", "always", "--debounce", "3"]),
                ("locus-notifier", ["--state", work + "/state/notifier", "--sink", "jsonl:\(output)/notifications.jsonl",
                                    "--locale", options.string("--locale") ?? "en"]),
                ("locus-motion", []),
            ]
            for (name, arguments) in services where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
                try supervisor.start(.init(name: name, executable: directory + "/" + name, arguments: arguments + quiet))
            }
            print("Locus demo: bus at \(endpoints.sub), state in \(work)")
            try recorder?.registerRegions()
            var provider = DemoScenario.providerArguments + quiet
            if follow { provider.append("--loop") }
            try supervisor.start(.init(name: "locus-provider", executable: directory + "/locus-provider",
                                       arguments: provider, restartOnExit: false))
            print("driving \(DemoScenario.device) at \(Int(DemoScenario.metresPerSecond)) m/s past \(DemoScenario.regions.map(\.id).joined(separator: ", ")); GNSS outage \(Int(DemoScenario.outageSeconds)) s\n")
            let started = Date().timeIntervalSince1970
            var finishedAt: Double?
            while !stopRequested.isRaised {
                try recorder?.pump(milliseconds: 200)
                let now = Date().timeIntervalSince1970
                if finishedAt == nil && supervisor.hasFinished("locus-provider") { finishedAt = now }
                // A few seconds after the route ends, for the last debounced events and deliveries.
                if let finishedAt, now - finishedAt > 6 { break }
                if now - started > 300 { throw DemoFailure("the drive did not end within 5 minutes") }
            }
        } catch {
            log.error("\(error)")
        }
        supervisor.stop()
        while supervising.isExecuting { usleep(20_000) }
        guard let recorder else { return 1 }
        recorder.close()
        return summarise(recorder, output: output)
    }

    static func summarise(_ recorder: DemoRecorder, output: String) -> Int32 {
        let svgPath = output + "/map.svg"
        var scene = PlotScene()
        for line in recorder.lines { scene.add(line: Substring(line), datum: .wgs84) }
        scene.preferFused()
        let svgWritten = (try? Data(SVGMap().render(scene, title: "Locus demo").utf8).write(to: URL(fileURLWithPath: svgPath))) != nil
        let checks: [(String, Bool)] = [
            ("fused fixes published", recorder.fusedFixes > 0),
            ("at least one enter", recorder.enters > 0),
            ("at least one exit", recorder.exits > 0),
            ("at least one notification delivered", recorder.notifications > 0),
            ("map written", svgWritten),
        ]
        print("\nLocus demo summary")
        print("  fixes: \(recorder.rawFixes) raw, \(recorder.fusedFixes) fused (\(recorder.degradedFixes) dead-reckoned or cached)")
        print("  region events: \(recorder.enters) enter, \(recorder.exits) exit, \(recorder.otherEvents) other")
        print("  notifications: \(recorder.notifications); errors reported: \(recorder.errors)")
        print("  recorded stream: \(output)/run.log")
        print("  map: \(svgPath)")
        for (name, passed) in checks { print("  [\(passed ? "ok" : "FAILED")] \(name)") }
        return checks.allSatisfy(\.1) ? 0 : 1
    }
}

struct DemoFailure: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}

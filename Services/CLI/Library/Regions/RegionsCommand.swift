import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus regions`: manage monitored regions over the bus. Every command waits for the
/// geofence's reply on `region.state.<owner>` and is retried under a fresh id when none
/// comes; the commands are idempotent (re-adding replaces, removing an absent region
/// succeeds), so a retry after a lost reply changes nothing.
enum RegionsCommand {
    static let spec = CommandLineSpec(
        program: "locus regions",
        summary: "add, remove, list, import and export monitored regions",
        usage: """
        locus regions add --owner O --id ID (--circle LON,LAT,RADIUS | --geometry JSON) [--dwell S] [--devices A,B]
               locus regions remove --owner O ID...
               locus regions list --owner O
               locus regions import FILE.geojson --owner O [--repair]
               locus regions export --owner O
        """,
        options: [
            OptionSpec("--owner", value: "NAME", help: "the client the regions belong to"),
            OptionSpec("--id", value: "ID", help: "region id (add)"),
            OptionSpec("--circle", value: "LON,LAT,RADIUS", help: "a circle, radius in metres (add)"),
            OptionSpec("--geometry", value: "JSON", help: "a GeoJSON Polygon or MultiPolygon (add)"),
            OptionSpec("--dwell", value: "SECONDS", help: "report a dwell event after this long inside (add)"),
            OptionSpec("--devices", value: "A,B", help: "watch only these devices (add)"),
            OptionSpec("--no-entry", help: "no enter events (add)"),
            OptionSpec("--no-exit", help: "no exit events (add)"),
            OptionSpec("--repair", help: "fix repeated positions, spikes, unclosed rings and rings crossing ±180° (split) before sending, and say what changed (import)"),
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint to publish to", environment: "LOCUS_PUB"),
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint to subscribe to", environment: "LOCUS_SUB"),
            OptionSpec("--curve-key", value: "FILE", help: "the owner's CURVE keypair file for a tcp bus", environment: "LOCUS_CURVE_KEY"),
            OptionSpec("--curve-server-key", value: "FILE", help: "the bus's CURVE public key file", environment: "LOCUS_CURVE_SERVER_KEY"),
            OptionSpec("--timeout", value: "SECONDS", help: "wait for replies this long per attempt", default: "3"),
            OptionSpec("--attempts", value: "N", help: "send a command at most this often", default: "3"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: """
        import reads a GeoJSON FeatureCollection: Polygon/MultiPolygon features, and Point features
        with a `radius` property (metres) for circles; the id comes from `properties.id` or the
        feature's `id`; `dwell`, `devices`, `notifyOnEntry`, `notifyOnExit` properties are kept.
        export writes the same form. A region refused for want of authorization (region monitoring
        needs always) prints the command that grants it and files an auth.request, shown by
        `locus auth pending`. Exit status: 0 all acknowledged, 1 some failed, 64 bad
        arguments, 65 bad input file, 69 no bus, or no reply from the geofence.
        """)

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        guard let action = options.positionals.first else { ServiceProgram.usageFailure("locus regions", "expected an action") }
        guard let owner = options.string("--owner"), Topic.isValidID(owner) else {
            ServiceProgram.usageFailure("locus regions", "--owner NAME is required")
        }
        let arguments = Array(options.positionals.dropFirst())
        let commands: [Body]
        do {
            switch action {
            case "add": commands = [.regionAdd(RegionAdd(owner: owner, region: try regionFromOptions(options)))]
            case "remove":
                guard !arguments.isEmpty else { ServiceProgram.usageFailure("locus regions", "remove needs region ids") }
                commands = arguments.map { .regionRemove(RegionRemove(owner: owner, regionId: $0)) }
            case "list", "export": commands = [.regionListRequest(RegionListRequest(owner: owner))]
            case "import":
                guard arguments.count == 1 else { ServiceProgram.usageFailure("locus regions", "import needs one FILE") }
                guard let data = FileManager.default.contents(atPath: arguments[0]) else {
                    ServiceProgram.usageFailure("locus regions", "cannot read '\(arguments[0])'")
                }
                var regions = try RegionGeoJSON.regions(from: data)
                if options.flag("--repair") {
                    let repaired = RegionRepair.apply(regions)
                    regions = repaired.regions
                    for line in repaired.report { print(line) }
                }
                commands = regions.map { .regionAdd(RegionAdd(owner: owner, region: $0)) }
            default: ServiceProgram.usageFailure("locus regions", "unknown action '\(action)'")
            }
        } catch {
            FileHandle.standardError.write(Data("locus regions: \(error)\n".utf8))
            return 65
        }
        let timeout: Double
        let attempts: Int
        let curve: CurveClientOptions?
        do {
            timeout = try options.double("--timeout") ?? 3
            attempts = try options.int("--attempts") ?? 3
        } catch { ServiceProgram.usageFailure("locus regions", error.message) }
        do {
            curve = try CurveClientOptions.load(keyFile: options.string("--curve-key"), serverKeyFile: options.string("--curve-server-key"))
        } catch { ServiceProgram.usageFailure("locus regions", "\(error)") }
        var endpoints = BusEndpoints.fromEnvironment()
        if let pub = options.string("--pub") { endpoints.pub = pub }
        if let sub = options.string("--sub") { endpoints.sub = sub }

        if let problem = BusDiagnosis.missingSocket(endpoints) {
            FileHandle.standardError.write(Data("locus regions: \(problem)\n".utf8))
            return 69
        }
        let exchange = RegionCommandExchange(endpoints: endpoints, owner: owner, curve: curve)
        // A region the geofence would reject as malformed is reported here, not sent (it would get no reply).
        var replies = commands.map(locallyInvalid)
        let sendable = replies.indices.filter { replies[$0] == nil }
        do {
            let answers = try exchange.send(sendable.map { commands[$0] }, timeoutSeconds: timeout, attempts: max(1, attempts))
            for (index, answer) in zip(sendable, answers) { replies[index] = answer }
        } catch {
            FileHandle.standardError.write(Data("locus regions: \(error)\n".utf8))
            return 69
        }
        let status = report(action: action, owner: owner, replies: replies)
        if replies.contains(where: { if case .regionFailed(let failed)? = $0 { failed.code == .notAuthorized } else { false } }) {
            // Like the system prompt on a phone: the request waits in `locus auth pending` for the person.
            exchange.requestAuthorization(level: "always", purpose: "locus regions \(action): monitor regions of \(owner)")
        }
        return status
    }

    /// The failure the protocol's own validation finds in a command, as the geofence would answer it.
    static func locallyInvalid(_ command: Body) -> Body? {
        guard case .regionAdd(let add) = command else { return nil }
        do {
            try Message(body: command, id: "check", t: 0, src: "cli/regions").validate()
            return nil
        } catch {
            return .regionFailed(RegionFailed(owner: add.owner, regionId: add.region.id, code: .invalidShape,
                                              message: error.message, re: "check"))
        }
    }

    private static func report(action: String, owner: String, replies: [Body?]) -> Int32 {
        var status: Int32 = 0
        var added = 0
        var notAuthorized: [RegionFailed] = []
        for reply in replies {
            switch reply {
            case .regionAdded(let ok)?:
                added += 1
                if action == "add" {
                    print("added \(ok.region.id)" + (ok.effectiveRadius.map { " (effective radius \($0) m)" } ?? ""))
                }
            case .regionRemoved(let ok)?: print("removed \(ok.regionId)")
            case .regionFailed(let failed)? where failed.code == .notAuthorized:
                notAuthorized.append(failed)
                status = max(status, 1)
            case .regionFailed(let failed)?:
                print("failed \(failed.regionId): \(failed.code.rawValue): \(failed.message)")
                status = max(status, 1)
            case .regionList(let list)?:
                if action == "export" {
                    print(RegionGeoJSON.featureCollection(list.regions))
                } else {
                    for region in list.regions { print("\(region.id)\t\(RegionGeoJSON.summary(region.shape))") }
                }
            case nil:
                status = 69
            default: break
            }
        }
        if let first = notAuthorized.first {
            // One refusal per region would bury the one thing to do: say it once, with the command.
            let regions = notAuthorized.count == 1 ? "region \(first.regionId)" : "\(notAuthorized.count) regions"
            print("failed \(regions): notAuthorized: \(first.message)")
            if !first.message.contains("locus auth grant"), !first.message.contains("restricted") {
                print("grant it with: \(AuthStatus.grantCommand(client: owner, level: "always"))")
            }
        }
        if action == "import" { print("imported \(added) of \(replies.count) regions") }
        if status == 69 { FileHandle.standardError.write(Data("locus regions: no reply from the geofence (is locus-geofence running?)\n".utf8)) }
        return status
    }

    private static func regionFromOptions(_ options: ParsedOptions) throws -> Region {
        guard let id = options.string("--id") else { ServiceProgram.usageFailure("locus regions", "add needs --id") }
        let shape: RegionShape
        if let circle = options.string("--circle") {
            let parts = circle.split(separator: ",").compactMap { Double($0) }
            guard parts.count == 3 else { ServiceProgram.usageFailure("locus regions", "--circle expects LON,LAT,RADIUS") }
            shape = .circle(center: GeoPoint(lon: parts[0], lat: parts[1]), radius: parts[2])
        } else if let geometry = options.string("--geometry") {
            let object = try RegionGeoJSON.object(Data(geometry.utf8))
            shape = try RegionGeoJSON.shape(fromGeometry: object, radius: nil, width: (object["width"] as? NSNumber)?.doubleValue)
        } else {
            ServiceProgram.usageFailure("locus regions", "add needs --circle or --geometry")
        }
        let dwell: Double?
        do { dwell = try options.double("--dwell") } catch { ServiceProgram.usageFailure("locus regions", error.message) }
        let devices = options.string("--devices").map { $0.split(separator: ",").map(String.init) }
        return Region(id: id, shape: shape, notifyOnEntry: !options.flag("--no-entry"), notifyOnExit: !options.flag("--no-exit"),
                      dwell: dwell, devices: devices)
    }
}

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

/// Sends region commands and pairs each with its reply by `re`, resending (under a new
/// id, since receivers drop repeated ids) whatever went unanswered.
struct RegionCommandExchange {
    let endpoints: BusEndpoints
    let owner: String
    /// The owner's keys on a CURVE bus (tcp); nil on a local NULL bus.
    var curve: CurveClientOptions? = nil
    /// Commands in flight at once, well below the bus's queue bounds.
    let window = 500

    func send(_ commands: [Body], timeoutSeconds: Double, attempts: Int) throws -> [Body?] {
        let context = ZMQContext()
        let subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub, prefixes: [Topic.regionState(owner), Topic.regionEvent(owner)], curve: curve)
        let publisher = try BusPublisher(context: context, endpoint: endpoints.pub, source: "cli/regions", curve: curve)
        defer {
            subscriber.socket.close()
            publisher.socket.close()
        }
        guard try publisher.waitUntilConnected(timeoutSeconds: timeoutSeconds) else {
            throw ExchangeError("no bus at \(endpoints.pub)")
        }
        var replies = [Body?](repeating: nil, count: commands.count)
        var poller = Poller()
        poller.add(subscriber.socket)
        for _ in 0..<attempts {
            var unanswered = replies.indices.filter { replies[$0] == nil }
            if unanswered.isEmpty { break }
            while !unanswered.isEmpty {
                let batch = unanswered.prefix(window)
                unanswered.removeFirst(batch.count)
                var waiting: [String: Int] = [:]
                for index in batch {
                    let message = try publisher.publish(commands[index], topic: Topic.regionCmd, t: Date().timeIntervalSince1970)
                    waiting[message.envelope.id] = index
                }
                let deadline = Date().timeIntervalSince1970 + timeoutSeconds
                while !waiting.isEmpty {
                    let remaining = deadline - Date().timeIntervalSince1970
                    if remaining <= 0 { break }
                    _ = try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))
                    while let received = try subscriber.receive(dontWait: true) {
                        guard case .message(_, let message, _) = received, let re = RegionCommandExchange.re(of: message.body),
                              let index = waiting.removeValue(forKey: re) else { continue }
                        replies[index] = message.body
                    }
                }
            }
        }
        return replies
    }

    /// Files an `auth.request` for the owner, so it waits in `locus auth pending`; best effort
    /// (a refusal, e.g. no usage description in an allow-list manifest, goes to `error.bus`).
    func requestAuthorization(level: String, purpose: String) {
        let context = ZMQContext()
        guard let publisher = try? BusPublisher(context: context, endpoint: endpoints.pub, source: "cli/regions", curve: curve) else { return }
        defer { publisher.socket.close() }
        guard (try? publisher.waitUntilConnected(timeoutSeconds: 2)) == true else { return }
        let request = AuthRequest(client: owner, level: level, purpose: purpose)
        _ = try? publisher.publish(.authRequest(request), topic: Topic.authCmd, t: Date().timeIntervalSince1970)
        _ = try? publisher.flush(timeoutSeconds: 2)
    }

    static func re(of body: Body) -> String? {
        switch body {
        case .regionAdded(let reply): return reply.re
        case .regionRemoved(let reply): return reply.re
        case .regionFailed(let reply): return reply.re
        case .regionList(let reply): return reply.re
        default: return nil
        }
    }

    struct ExchangeError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// GeoJSON in and out for `locus regions import|export`. GeoJSON has no circle, so a
/// circle travels as a Point feature with a `radius` property.
enum RegionGeoJSON {
    struct FormatError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FormatError("expected a JSON object")
        }
        return object
    }

    static func regions(from data: Data) throws -> [Region] {
        let root = try object(data)
        let features: [[String: Any]]
        switch root["type"] as? String {
        case "FeatureCollection": features = root["features"] as? [[String: Any]] ?? []
        case "Feature": features = [root]
        default: throw FormatError("expected a FeatureCollection or a Feature")
        }
        return try features.enumerated().map { index, feature in
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let id = (properties["id"] ?? feature["id"]).map({ "\($0)" }), !id.isEmpty else {
                throw FormatError("feature \(index) has no id (properties.id or id)")
            }
            guard let geometry = feature["geometry"] as? [String: Any] else { throw FormatError("feature \(id) has no geometry") }
            let shape = try shape(fromGeometry: geometry, radius: (properties["radius"] as? NSNumber)?.doubleValue,
                                  width: ((properties["width"] ?? geometry["width"]) as? NSNumber)?.doubleValue)
            return Region(id: id, shape: shape, notifyOnEntry: properties["notifyOnEntry"] as? Bool ?? true,
                          notifyOnExit: properties["notifyOnExit"] as? Bool ?? true,
                          dwell: (properties["dwell"] as? NSNumber)?.doubleValue, devices: properties["devices"] as? [String])
        }
    }

    static func shape(fromGeometry geometry: [String: Any], radius: Double?, width: Double? = nil) throws -> RegionShape {
        func point(_ value: Any) throws -> GeoPoint {
            guard let pair = value as? [NSNumber], pair.count >= 2 else { throw FormatError("a position must be [lon, lat]") }
            return GeoPoint(lon: pair[0].doubleValue, lat: pair[1].doubleValue)
        }
        func rings(_ value: Any?) throws -> [[GeoPoint]] {
            guard let rings = value as? [[Any]] else { throw FormatError("polygon coordinates must be a list of rings") }
            return try rings.map { try $0.map(point) }
        }
        switch geometry["type"] as? String {
        case "Point":
            guard let radius else { throw FormatError("a Point feature needs a radius property (metres)") }
            return .circle(center: try point(geometry["coordinates"] as Any), radius: radius)
        case "Circle":
            guard let radius = (geometry["radius"] as? NSNumber)?.doubleValue else { throw FormatError("a Circle needs a radius") }
            return .circle(center: try point(geometry["center"] as Any), radius: radius)
        case "Polygon": return .polygon(try rings(geometry["coordinates"]))
        case "LineString":
            guard let width = width else { throw FormatError("a LineString feature needs a width property (metres)") }
            guard let positions = geometry["coordinates"] as? [Any] else { throw FormatError("LineString coordinates must be a list") }
            return .corridor(line: try positions.map(point), width: width)
        case "MultiPolygon":
            guard let polygons = geometry["coordinates"] as? [Any] else { throw FormatError("MultiPolygon coordinates must be a list") }
            return .multiPolygon(try polygons.map { try rings($0) })
        case let other: throw FormatError("unsupported geometry type \(other ?? "(none)")")
        }
    }

    static func featureCollection(_ regions: [Region]) -> String {
        let features: [[String: Any]] = regions.map { region in
            var properties: [String: Any] = ["id": region.id]
            if !region.notifyOnEntry { properties["notifyOnEntry"] = false }
            if !region.notifyOnExit { properties["notifyOnExit"] = false }
            if let dwell = region.dwell { properties["dwell"] = dwell }
            if let devices = region.devices { properties["devices"] = devices }
            let geometry: [String: Any]
            switch region.shape {
            case .circle(let center, let radius):
                properties["radius"] = radius
                geometry = ["type": "Point", "coordinates": [center.lon, center.lat]]
            case .polygon(let rings): geometry = ["type": "Polygon", "coordinates": positions(rings)]
            case .multiPolygon(let polygons): geometry = ["type": "MultiPolygon", "coordinates": polygons.map(positions)]
            case .corridor(let line, let width):
                properties["width"] = width
                geometry = ["type": "LineString", "coordinates": line.map { [$0.lon, $0.lat] }]
            }
            return ["type": "Feature", "id": region.id, "properties": properties, "geometry": geometry]
        }
        let collection: [String: Any] = ["type": "FeatureCollection", "features": features]
        let data = (try? JSONSerialization.data(withJSONObject: collection, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func summary(_ shape: RegionShape) -> String {
        switch shape {
        case .circle(let center, let radius): return "Circle \(center.lon),\(center.lat) r=\(radius) m"
        case .polygon(let rings): return "Polygon \(rings.count) ring(s), \(rings.first?.count ?? 0) positions"
        case .multiPolygon(let polygons): return "MultiPolygon \(polygons.count) part(s)"
        case .corridor(let line, let width): return "LineString \(line.count) positions, width \(width) m"
        }
    }

    private static func positions(_ rings: [[GeoPoint]]) -> [[[Double]]] {
        rings.map { $0.map { [$0.lon, $0.lat] } }
    }
}

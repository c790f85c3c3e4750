import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus auth`: the person's side of Core Location's prompt. It sends `auth.set` as an
/// admin identity (the local ipc bus, or `--curve-key` with the admin role) and waits
/// for the bus to confirm on `auth.status.<client>` or refuse on `error.bus`.
enum AuthCommand {
    static let spec = CommandLineSpec(
        program: "locus auth",
        summary: "decide and inspect location authorization",
        usage: """
        locus auth pending | status CLIENT
        locus auth grant CLIENT whenInUse|always [--accuracy full|reduced]
        locus auth grant CLIENT temporaryFull --purpose KEY [--duration SECONDS]
        locus auth deny|restrict|revoke CLIENT
        """,
        options: [
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint to publish to", environment: "LOCUS_PUB"),
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint to subscribe to", environment: "LOCUS_SUB"),
            OptionSpec("--curve-key", value: "FILE", help: "admin keypair file for a CURVE bus", environment: "LOCUS_CURVE_KEY"),
            OptionSpec("--curve-server-key", value: "FILE", help: "the bus's public key file", environment: "LOCUS_CURVE_SERVER_KEY"),
            OptionSpec("--accuracy", value: "full|reduced", help: "accuracy granted with whenInUse/always", default: "full"),
            OptionSpec("--purpose", value: "KEY", help: "purpose key for temporaryFull (from the client's manifest)"),
            OptionSpec("--duration", value: "SECONDS", help: "how long temporaryFull lasts at most", default: "3600"),
            OptionSpec("--timeout", value: "SECONDS", help: "how long to wait for the bus", default: "5"),
            OptionSpec("--json", help: "grant/deny/restrict/revoke: print the bus's auth.status message instead of a sentence"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: """
        On a bus without an allow-list (the local bus of one user) any id is a client: `locus auth grant world always`
        lets owner `world` monitor regions. revoke resets a client to notDetermined; deny sets denied.
        Exit status: 0 done, 1 refused, 64 bad arguments, 69 no bus, or a bus that is not the authority (the message says which).
        """)

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let words = options.positionals
        guard let action = words.first else { ServiceProgram.usageFailure("locus auth", "expected an action") }
        let endpoints = BusEndpoints(pub: options.string("--pub") ?? BusEndpoints.fromEnvironment().pub,
                                     sub: options.string("--sub") ?? BusEndpoints.fromEnvironment().sub)
        let timeout: Double
        let curve: CurveClientOptions?
        do {
            timeout = try options.double("--timeout") ?? 5
            curve = try CurveClientOptions.load(keyFile: options.string("--curve-key"), serverKeyFile: options.string("--curve-server-key"))
        } catch { ServiceProgram.usageFailure("locus auth", "\(error)") }
        if action == "pending" || action == "status" {
            let prefix = action == "pending" ? Topic.authPendingPrefix : Topic.authStatus(words.count > 1 ? words[1] : "")
            return show(prefix: prefix, endpoints: endpoints, curve: curve, timeout: timeout, pendingOnly: action == "pending")
        }
        guard words.count >= 2 else { ServiceProgram.usageFailure("locus auth", "expected CLIENT") }
        let client = words[1]
        var fields: [String: JSONValue] = ["client": .string(client)]
        switch action {
        case "grant":
            guard words.count == 3 else { ServiceProgram.usageFailure("locus auth", "grant needs a level") }
            switch words[2] {
            case "whenInUse", "always":
                fields["status"] = .string(words[2])
                let accuracy = options.string("--accuracy") ?? "full"
                guard accuracy == "full" || accuracy == "reduced" else { ServiceProgram.usageFailure("locus auth", "--accuracy is full or reduced") }
                fields["accuracy"] = .string(accuracy)
            case "temporaryFull":
                guard let purpose = options.string("--purpose") else { ServiceProgram.usageFailure("locus auth", "temporaryFull needs --purpose KEY") }
                fields["temporaryPurpose"] = .string(purpose)
                do { fields["durationSeconds"] = .number(try options.double("--duration") ?? 3600) } catch {
                    ServiceProgram.usageFailure("locus auth", error.message)
                }
            default: ServiceProgram.usageFailure("locus auth", "unknown level '\(words[2])'")
            }
        case "deny": fields["status"] = .string("denied")
        case "restrict": fields["status"] = .string("restricted")
        case "revoke": fields["status"] = .string("notDetermined")
        default: ServiceProgram.usageFailure("locus auth", "unknown action '\(action)'")
        }
        return send(fields: fields, client: client, endpoints: endpoints, curve: curve, timeout: timeout,
                    json: options.flag("--json"))
    }

    /// What the bus decided, as a person reads it: `me: always, full accuracy`.
    static func sentence(_ status: AuthStatus) -> String {
        var text = "\(status.client): \(status.status.rawValue)"
        if status.status.isAuthorized { text += ", \(status.accuracy.rawValue) accuracy" }
        if let temporary = status.temporaryFull {
            let until = Date(timeIntervalSince1970: temporary.expires).formatted(.iso8601)
            text += "; full accuracy for \(temporary.purpose) until \(until)"
        }
        return text
    }

    private static func send(fields: [String: JSONValue], client: String, endpoints: BusEndpoints,
                             curve: CurveClientOptions?, timeout: Double, json: Bool) -> Int32 {
        if let problem = BusDiagnosis.missingSocket(endpoints) { return fail(problem, status: 69) }
        let context = ZMQContext()
        var diagnosis = BusDiagnosis(endpoints: endpoints)
        do {
            let subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub,
                                               prefixes: [Topic.authStatus(client), Topic.error("bus"), BusDiagnosis.healthPrefix],
                                               curve: curve)
            let publisher = try BusPublisher(context: context, endpoint: endpoints.pub, source: "cli/auth", curve: curve)
            defer {
                subscriber.socket.close()
                publisher.socket.close()
            }
            guard try publisher.waitUntilConnected(timeoutSeconds: timeout) else {
                return fail(BusDiagnosis.notConnected(endpoints, seconds: timeout), status: 69)
            }
            let sent = try publisher.publish(.other(type: MessageType.authSet, fields: .object(fields)), topic: Topic.authCmd,
                                             t: Date().timeIntervalSince1970)
            var poller = Poller()
            poller.add(subscriber.socket)
            let deadline = Date().timeIntervalSince1970 + timeout
            while Date().timeIntervalSince1970 < deadline {
                guard try poller.poll(timeoutMilliseconds: 100)[0] else { continue }
                while let received = try subscriber.receive(dontWait: true) {
                    guard case let .message(topic, message, raw) = received else { continue }
                    if diagnosis.observe(topic: topic, message: message) {
                        if diagnosis.isNotAuthority { return fail(diagnosis.silence(seconds: timeout, waitingFor: "answer"), status: 69) }
                        continue
                    }
                    if case .error(let report) = message.body, report.ref == sent.envelope.id {
                        return fail("refused: \(report.code): \(report.message)", status: 1)
                    }
                    if topic == Topic.authStatus(client), message.envelope.t >= sent.envelope.t {
                        if !json, case .authStatus(let status) = message.body {
                            print(sentence(status))
                        } else {
                            print(String(decoding: raw, as: UTF8.self))
                        }
                        return 0
                    }
                }
            }
            return fail(diagnosis.silence(seconds: timeout, waitingFor: "auth.status.\(client)"), status: 69)
        } catch {
            return fail("\(error)", status: 1)
        }
    }

    private static func fail(_ text: String, status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("locus auth: \(text)\n".utf8))
        return status
    }

    /// Prints the cached messages under `prefix` (the bus replays them to a new subscriber at once).
    private static func show(prefix: String, endpoints: BusEndpoints, curve: CurveClientOptions?, timeout: Double,
                             pendingOnly: Bool) -> Int32 {
        if let problem = BusDiagnosis.missingSocket(endpoints) { return fail(problem, status: 69) }
        let context = ZMQContext()
        var diagnosis = BusDiagnosis(endpoints: endpoints)
        do {
            let subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub,
                                               prefixes: [prefix, BusDiagnosis.healthPrefix], curve: curve)
            defer { subscriber.socket.close() }
            var poller = Poller()
            poller.add(subscriber.socket)
            var printed = 0
            let quiet = min(timeout, 1.0)
            var deadline = Date().timeIntervalSince1970 + timeout
            while Date().timeIntervalSince1970 < deadline {
                guard try poller.poll(timeoutMilliseconds: 50)[0] else { continue }
                while let received = try subscriber.receive(dontWait: true) {
                    guard case let .message(topic, message, raw) = received else { continue }
                    if diagnosis.observe(topic: topic, message: message) {
                        if diagnosis.isNotAuthority { return fail(diagnosis.silence(seconds: timeout, waitingFor: prefix), status: 69) }
                        if printed == 0 { deadline = min(deadline, Date().timeIntervalSince1970 + quiet) }
                        continue
                    }
                    let text = String(decoding: raw, as: UTF8.self)
                    if pendingOnly && text.contains("\"requests\":[]") { continue }
                    print("\(topic) \(text)")
                    printed += 1
                    deadline = min(deadline, Date().timeIntervalSince1970 + quiet)
                }
            }
            if diagnosis.busHealth == nil { return fail(diagnosis.silence(seconds: timeout, waitingFor: prefix), status: 69) }
            if printed == 0 {
                FileHandle.standardError.write(Data((pendingOnly ? "locus auth: no request is waiting\n" : "locus auth: nothing under \(prefix)\n").utf8))
            }
            return 0
        } catch {
            return fail("\(error)", status: 1)
        }
    }
}

import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus doctor`: what is wrong with this installation, one line per finding, so a
/// person (or a monitoring script, through the exit status) knows where to look first.
enum DoctorCommand {
    static let spec = CommandLineSpec(
        program: "locus doctor",
        summary: "check the bus, each service's health, the clock, and file permissions",
        usage: "locus doctor [--wait SECONDS] [--path FILE_OR_DIR...]",
        options: [
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint for publishers", environment: "LOCUS_PUB"),
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint for subscribers", environment: "LOCUS_SUB"),
            OptionSpec("--wait", value: "SECONDS", help: "how long to listen for health messages", default: "3"),
            OptionSpec("--path", value: "PATH", help: "a state directory or secret file whose permissions to check (repeatable)", repeatable: true),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Exit status 0 when nothing failed, 1 otherwise. Warnings do not fail.")

    enum Level: String { case ok, warn, fail }

    struct Finding {
        var level: Level
        var text: String
    }

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        var endpoints = BusEndpoints.fromEnvironment()
        if let pub = options.string("--pub") { endpoints.pub = pub }
        if let sub = options.string("--sub") { endpoints.sub = sub }
        let wait: Double
        do { wait = try options.double("--wait") ?? 3 } catch { ServiceProgram.usageFailure("locus doctor", error.message) }
        var findings = endpointFindings(endpoints)
        findings += healthFindings(endpoints, wait: wait)
        for path in options.strings("--path") { findings.append(permissionFinding(path)) }
        for finding in findings { print("\(finding.level.rawValue): \(finding.text)") }
        return findings.contains { $0.level == .fail } ? 1 : 0
    }

    /// ipc socket files must exist and sit in a directory only their owner can enter.
    static func endpointFindings(_ endpoints: BusEndpoints) -> [Finding] {
        [endpoints.pub, endpoints.sub].map { endpoint in
            guard endpoint.hasPrefix("ipc://") else { return Finding(level: .ok, text: "\(endpoint): network endpoint (checked through health below)") }
            let path = String(endpoint.dropFirst(6))
            guard FileManager.default.fileExists(atPath: path) else {
                return Finding(level: .fail, text: "\(endpoint): no socket; is locus-bus running? (start it with `locus up`)")
            }
            let directory = (path as NSString).deletingLastPathComponent
            if let mode = (try? FileManager.default.attributesOfItem(atPath: directory))?[.posixPermissions] as? Int, mode & 0o077 != 0 {
                return Finding(level: .warn, text: "\(directory): mode \(String(mode, radix: 8)); other users may reach the bus (want 700)")
            }
            return Finding(level: .ok, text: "\(endpoint): socket present, directory private")
        }
    }

    /// Listens to `health.*` (the bus replays the last of each) and judges each service.
    static func healthFindings(_ endpoints: BusEndpoints, wait: Double) -> [Finding] {
        let context = ZMQContext()
        var latest: [String: (health: Health, t: Double)] = [:]
        do {
            let subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub, prefixes: [Topic.healthPrefix])
            defer { subscriber.socket.close() }
            var poller = Poller()
            poller.add(subscriber.socket)
            let deadline = Date().timeIntervalSince1970 + wait
            while Date().timeIntervalSince1970 < deadline {
                let remaining = deadline - Date().timeIntervalSince1970
                guard try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))[0] else { continue }
                while let received = try subscriber.receive(dontWait: true) {
                    if case let .message(_, message, _) = received, case let .health(health) = message.body {
                        latest[health.service] = (health, message.envelope.t)
                    }
                }
            }
        } catch {
            return [Finding(level: .fail, text: "cannot subscribe at \(endpoints.sub): \(error)")]
        }
        guard !latest.isEmpty else {
            return [Finding(level: .fail, text: "no health message from any service within \(wait) s at \(endpoints.sub)")]
        }
        let now = Date().timeIntervalSince1970
        let bus = latest["bus"]?.health
        var findings: [Finding] = latest.sorted(by: { $0.key < $1.key }).map { service, entry in
            var finding = judge(service: service, health: entry.health, age: now - entry.t)
            // Who published it, as the bus saw it: only services may (docs/security.md).
            if let sender = bus?.sender(of: service) { finding.text += " (from \(sender))" }
            return finding
        }
        if !latest.keys.contains("bus") {
            findings.append(Finding(level: .warn, text: "bus: no health.bus seen (is this a Locus bus?)"))
        }
        return findings
    }

    /// One service's finding from its latest health and that message's age in seconds.
    static func judge(service: String, health: Health, age: Double) -> Finding {
        let summary = ["received", "sent", "rejected", "dropped"].compactMap { key in health.counters[key].map { "\(key)=\($0)" } }
            .joined(separator: " ")
        if age < -2 { return Finding(level: .fail, text: "\(service): health is \(Int(-age)) s in the future; clocks differ between hosts") }
        if age > 15 { return Finding(level: .fail, text: "\(service): last health \(Int(age)) s ago; it has stopped or lost the bus") }
        if health.state != .ok {
            return Finding(level: health.state == .failing ? .fail : .warn,
                           text: "\(service): \(health.state.rawValue) \(health.detail.map { describe($0) } ?? "") \(summary)")
        }
        return Finding(level: .ok, text: "\(service): ok \(summary)")
    }

    static func describe(_ detail: [String: String]) -> String {
        detail.filter { $0.key != "pid" && $0.key != "senders" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// Secrets and state belong to their owner alone.
    static func permissionFinding(_ path: String) -> Finding {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let mode = attributes[.posixPermissions] as? Int else {
            return Finding(level: .fail, text: "\(path): does not exist or cannot be read")
        }
        let isDirectory = (attributes[.type] as? FileAttributeType) == .typeDirectory
        let want = isDirectory ? 0o700 : 0o600
        if mode & 0o077 != 0 {
            return Finding(level: .fail, text: "\(path): mode \(String(mode, radix: 8)), readable by others (chmod \(String(want, radix: 8)))")
        }
        return Finding(level: .ok, text: "\(path): mode \(String(mode, radix: 8))")
    }
}

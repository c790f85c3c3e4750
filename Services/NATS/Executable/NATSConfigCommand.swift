import Foundation
import LocusBroker
import LocusService

/// `locus nats config`: the NATS servers' `authorization` section from the bus's allow-list
/// and authorization state (docs/nats.md, "Authorization"): a user per client with the
/// subject permissions of its roles and tier (`NATSPermissions`), plus the authority. Written
/// only when it changed; `--reload` then signals the servers to apply it live, and `--watch`
/// keeps it current as grants change or temporary full accuracy ends.
enum NATSConfigCommand {
    static let spec = CommandLineSpec(
        program: "locus nats config",
        summary: "write the NATS servers' authorization section from the allow-list and authorization state",
        usage: "locus nats config --allow FILE --out FILE [--state DIR] [--credentials DIR] [--reload PID|PIDFILE]... [--watch]",
        options: [
            OptionSpec("--allow", value: "FILE", help: "the bus's allow-list (docs/security.md)"),
            OptionSpec("--state", value: "DIR", help: "the authority's state directory (auth-state.json); none: every app notDetermined"),
            OptionSpec("--out", value: "FILE", help: "the authorization section to write (include it in every node's config)"),
            OptionSpec("--credentials", value: "DIR", help: "each user's NAME.credentials (user:password, 0600) and NAME.bcrypt; default: credentials/ beside --out"),
            OptionSpec("--authority", value: "NAME", help: "the user that alone may publish auth.status and auth.pending", default: "authority"),
            OptionSpec("--reload", value: "PID|PIDFILE", help: "a nats-server to send SIGHUP (config reload) after a change", repeatable: true),
            OptionSpec("--watch", help: "keep running: apply changes of the inputs and the end of temporary grants"),
            OptionSpec("--interval", value: "SECONDS", help: "how often --watch reads the inputs", default: "2"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: """
        Clients connect with --nats-credentials DIR/NAME.credentials. Exit status: 0 written (or unchanged),
        64 bad arguments, 78 an unreadable allow-list or state.
        """)

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        guard let allowPath = options.string("--allow"), let out = options.string("--out") else {
            ServiceProgram.usageFailure(spec.program, "--allow and --out are required")
        }
        let interval: Double
        do { interval = try options.double("--interval") ?? 2 } catch { ServiceProgram.usageFailure(spec.program, error.message) }
        let authority = options.string("--authority") ?? "authority"
        guard AllowList.isValidName(authority) else { ServiceProgram.usageFailure(spec.program, "--authority must be a client name") }
        let credentials = options.string("--credentials")
            ?? (((out as NSString).deletingLastPathComponent as NSString).appendingPathComponent("credentials"))
        let reload = options.strings("--reload")
        var reported = false
        while true {
            do {
                let now = Date().timeIntervalSince1970
                let (text, summary, nextChange) = try section(allowPath: allowPath, stateDirectory: options.string("--state"),
                                                              credentials: credentials, authority: authority, now: now)
                if try writeIfChanged(text, to: out) {
                    print("wrote \(out): \(summary.joined(separator: "; "))")
                    signal(reload)
                } else if !reported {
                    print("\(out) is current: \(summary.joined(separator: "; "))")
                }
                reported = true
                guard options.flag("--watch") else { return 0 }
                Thread.sleep(forTimeInterval: max(0.1, min(interval, (nextChange ?? .infinity) - now + 0.05)))
            } catch {
                FileHandle.standardError.write(Data("locus nats config: \(error)\n".utf8))
                guard options.flag("--watch") else { return ServiceProgram.exitConfig }
                Thread.sleep(forTimeInterval: interval)
            }
        }
    }

    /// The section's text, one summary item per user, and when a temporary grant next ends.
    static func section(allowPath: String, stateDirectory: String?, credentials: String, authority: String,
                        now: Double) throws -> (String, [String], Double?) {
        let allow = try AllowList.load(path: allowPath)
        for problem in allow.problems { FileHandle.standardError.write(Data("locus nats config: \(allowPath): \(problem)\n".utf8)) }
        let state = try stateDirectory.map { try AuthorizationStore(directory: $0).load() } ?? [:]
        let passwords = try NATSPasswords(directory: credentials)
        var users = [NATSAuthorizationSection.User(name: authority, passwordHash: try passwords.hash(for: authority),
                                                   permissions: .authority)]
        var summary = ["\(authority): authority"]
        var nextChange: Double?
        for entry in allow.byName.values.sorted(by: { $0.name < $1.name }) where entry.name != authority {
            let record = state[entry.name]
            let permissions = NATSPermissions.client(entry, authorization: record, now: now)
            for problem in permissions.problems {
                FileHandle.standardError.write(Data("locus nats config: client '\(entry.name)': \(problem)\n".utf8))
            }
            users.append(.init(name: entry.name, passwordHash: try passwords.hash(for: entry.name), permissions: permissions))
            summary.append("\(entry.name): " + describe(entry, record, now: now))
            if let expires = record?.temporaryFull?.expires, expires > now { nextChange = min(nextChange ?? expires, expires) }
        }
        let comment = ["Written by `locus nats config` from \(allowPath)" + (stateDirectory.map { " and \($0)/auth-state.json" } ?? "") + ".",
                       "Do not edit: run it again (docs/nats.md, \"Authorization\")."]
        return (NATSAuthorizationSection.render(users, comment: comment), summary, nextChange)
    }

    private static func describe(_ entry: AllowListEntry, _ record: ClientAuthorization?, now: Double) -> String {
        if entry.roles.contains(.service) { return "service" }
        let record = record ?? ClientAuthorization()
        let roles = entry.roles.map(\.rawValue).sorted()
        return (roles.isEmpty ? "" : roles.joined(separator: ",") + ", ")
            + "\(record.status.rawValue)/\(record.accuracy.rawValue) → \(record.tier(now: now))"
    }

    /// Writes `text` (0600, by rename) unless the file already holds it; true when written.
    static func writeIfChanged(_ text: String, to path: String) throws -> Bool {
        if let current = FileManager.default.contents(atPath: path), current == Data(text.utf8) { return false }
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            throw NATSConfigError("cannot write \(path)")
        }
        return true
    }

    /// SIGHUP to each server: nats-server reloads its configuration, authorization included,
    /// and applies it to the clients already connected.
    private static func signal(_ targets: [String]) {
        for target in targets {
            let text = target.allSatisfy(\.isNumber) ? target
                : FileManager.default.contents(atPath: target).map { String(decoding: $0, as: UTF8.self) } ?? ""
            guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, SIGHUP) == 0 else {
                FileHandle.standardError.write(Data("locus nats config: cannot signal nats-server \(target) to reload\n".utf8))
                continue
            }
            print("signalled nats-server \(pid) to reload")
        }
    }
}

public import LocusMQTT
import Foundation

/// A `--sink` value: `stdout`, `jsonl:FILE`, `exec:CMD`, `webhook:URL`, `desktop` or
/// `mqtt:HOST:PORT`. Parsed before anything starts so a typo exits 64 with the reason.
public enum SinkSpec: Sendable, Equatable {
    case stdout
    case jsonLines(path: String)
    case exec(command: String)
    case webhook(url: String)
    case desktop
    case mqtt(host: String, port: Int32)

    public init(parsing text: String) throws(CatalogError) {
        let kind = text.prefix { $0 != ":" }
        let argument = text.count > kind.count ? String(text.dropFirst(kind.count + 1)) : nil
        switch (kind, argument) {
        case ("stdout", nil): self = .stdout
        case ("desktop", nil): self = .desktop
        case ("jsonl", let path?) where !path.isEmpty: self = .jsonLines(path: path)
        case ("exec", let command?) where !command.isEmpty: self = .exec(command: command)
        case ("webhook", let url?):
            _ = try WebhookURL(url)
            self = .webhook(url: url)
        case ("mqtt", let address?):
            guard let colon = address.lastIndex(of: ":"), let port = Int32(address[address.index(after: colon)...]),
                  (1...65_535).contains(port), colon > address.startIndex else {
                throw CatalogError("sink '\(text)': expected mqtt:HOST:PORT")
            }
            self = .mqtt(host: String(address[..<colon]), port: port)
        default:
            throw CatalogError("unknown sink '\(text)' (expected stdout, jsonl:FILE, exec:CMD, webhook:URL, desktop or mqtt:HOST:PORT)")
        }
    }

    /// The word used in `notify.<sink>`.
    public var kindName: String {
        switch self {
        case .stdout: return "stdout"
        case .jsonLines: return "jsonl"
        case .exec: return "exec"
        case .webhook: return "webhook"
        case .desktop: return "desktop"
        case .mqtt: return "mqtt"
        }
    }

    /// Names for a list of specs: the kind, with `-2`, `-3`… for repeats (`jsonl`, `jsonl-2`).
    /// Names key the outbox cursors, so keep the order of `--sink` flags stable across restarts.
    public static func names(_ specs: [SinkSpec]) -> [String] {
        var seen: [String: Int] = [:]
        return specs.map { spec in
            let count = (seen[spec.kindName] ?? 0) + 1
            seen[spec.kindName] = count
            return count == 1 ? spec.kindName : "\(spec.kindName)-\(count)"
        }
    }
}

/// Options the sinks share, from the command line.
public struct SinkOptions: Sendable {
    public var execTimeoutSeconds: Double = 30
    public var httpTimeoutSeconds: Double = 10
    public var mqttUser: String = "locus"
    /// Broker credentials and TLS for `mqtt:` sinks (host and port come from each sink).
    public var mqttCredentials = MQTTSettings(host: "", port: 0, clientID: "")
    /// CA file, proxy and headers for `webhook:` sinks.
    public var webhook = WebhookOptions()
    /// In `--stdio` mode stdout carries protocol lines, so the stdout sink writes to stderr.
    public var stdoutToStandardError = false

    public init() {}
}

extension SinkSpec {
    /// Builds the sink; called on the worker thread that will own it.
    public func makeSink(name: String, options: SinkOptions) throws(CatalogError) -> any NotificationSink {
        switch self {
        case .stdout: return StdoutSink(name: name, useStandardError: options.stdoutToStandardError)
        case .jsonLines(let path): return JSONLinesSink(name: name, path: path)
        case .exec(let command): return ExecSink(name: name, command: command, timeoutSeconds: options.execTimeoutSeconds)
        case .webhook(let url): return try WebhookSink(name: name, url: url, options: options.webhook, timeoutSeconds: options.httpTimeoutSeconds)
        case .desktop: return DesktopSink(name: name)
        case .mqtt(let host, let port):
            var settings = options.mqttCredentials
            settings.host = host
            settings.port = port
            settings.clientID = "locus-notifier-\(getpid())-\(name)"
            settings.timeoutSeconds = options.httpTimeoutSeconds
            return MQTTSink(name: name, settings: settings, user: options.mqttUser)
        }
    }
}

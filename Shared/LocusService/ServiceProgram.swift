public import Foundation

/// What every Locus executable shares at start-up: the common options, `--help`,
/// `--version`, config < environment < flags, exit 64 on bad arguments, 78 on a bad config
/// file, and signal handling that turns SIGTERM/SIGINT into a clean stop.
public enum ServiceProgram {
    /// The directory of the running executable: where `locus` finds the `locus-*` programs
    /// installed beside it.
    public static var ownDirectory: String {
        let path = Bundle.main.executablePath ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    public static let version = "0.1.0"

    public static let exitUsage: Int32 = 64
    public static let exitConfig: Int32 = 78

    /// Options every service accepts (docs/protocol.md, "Programs").
    public static let commonOptions: [OptionSpec] = [
        OptionSpec("--config", value: "FILE", help: "read options from a JSON object (keys are option names without dashes)"),
        OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint publishers connect to (nats://HOST:PORT[,…]: a NATS cluster, docs/nats.md)", environment: "LOCUS_PUB"),
        OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint subscribers connect to", environment: "LOCUS_SUB"),
        OptionSpec("--curve-key", value: "FILE", help: "this service's CURVE keypair file (locus keys gen) for a tcp bus", environment: "LOCUS_CURVE_KEY"),
        OptionSpec("--curve-server-key", value: "FILE", help: "the bus's CURVE public key file", environment: "LOCUS_CURVE_SERVER_KEY"),
        OptionSpec("--nats-credentials", value: "FILE", help: "on NATS: a file with 'user:password' or a NATS .creds file", environment: "LOCUS_NATS_CREDENTIALS"),
        OptionSpec("--partition", value: "K/N", help: "on NATS: consume the server's device partition K of N (docs/nats.md)"),
        OptionSpec("--fix-delivery", value: "MODE", help: "on NATS: positions stored and replayed (durable) or plain NATS with a last-value cache (plain); the same on every service (docs/nats.md)",
                   environment: "LOCUS_FIX_DELIVERY", default: "durable"),
        OptionSpec("--stdio", help: "read text-form messages from stdin and write them to stdout instead of using the bus"),
        OptionSpec("--instance", value: "NAME", help: "instance name used in the `src` of published messages", default: "main"),
        OptionSpec("--shard", value: "K/N", help: "handle only the devices rendezvous hashing gives to instance K of N"),
        OptionSpec("--health-interval", value: "SECONDS", help: "seconds between health messages (at most 5)", default: "2"),
        OptionSpec("--log-level", value: "LEVEL", help: "debug, info, warn or error", default: "info"),
        OptionSpec("--version", help: "print the version and exit"),
        OptionSpec("--help", help: "print this help and exit"),
    ]

    /// Parses arguments, handling `--help`, `--version` and every error by exiting with the documented status.
    public static func parseOrExit(_ spec: CommandLineSpec, arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> ParsedOptions {
        do {
            let first = try spec.parse(arguments)
            if first.flag("--help") {
                print(spec.helpText, terminator: "")
                exit(0)
            }
            if first.flag("--version") {
                print("\(spec.program) \(version)")
                exit(0)
            }
            guard let path = first.string("--config") else { return first }
            let config = try CommandLineSpec.loadConfig(path: path)
            do { return try spec.parse(arguments, config: config) } catch {
                throw ConfigError("config file '\(path)': \(error.message)")
            }
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("\(spec.program): \(error.message)\n".utf8))
            exit(exitUsage)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("\(spec.program): \(error.message)\n".utf8))
            exit(exitConfig)
        } catch {
            FileHandle.standardError.write(Data("\(spec.program): \(error)\n".utf8))
            exit(exitUsage)
        }
    }

    /// Exits 64 with a message, for checks done after parsing (a missing plugin, a bad value).
    public static func usageFailure(_ program: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("\(program): \(message) (see --help)\n".utf8))
        exit(exitUsage)
    }

    public static func logLevel(_ options: ParsedOptions, program: String) -> ServiceLog.Level {
        switch options.string("--log-level") ?? "info" {
        case "debug": return .debug
        case "info": return .info
        case "warn": return .warn
        case "error": return .error
        case let other: usageFailure(program, "--log-level must be debug, info, warn or error, not '\(other)'")
        }
    }

    /// Runs `onSignal` (once per signal, on a Dispatch thread) for SIGTERM and SIGINT instead of dying,
    /// so the owner can shut its context down and exit 0. Keep the returned sources alive.
    ///
    /// The handler only writes the signal number into a pipe, and a Dispatch source reads the
    /// pipe: a signal that arrives before Dispatch has registered the source (right after a
    /// readiness notice, say) waits in the pipe instead of being ignored. Call once per process.
    public static func handleTerminationSignals(_ onSignal: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceProtocol] {
        let readFD = TerminationSignalPipe.wakeup.readFD
        let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: .global())
        source.setEventHandler {
            var number: UInt8 = 0
            while read(readFD, &number, 1) == 1 { onSignal(Int32(number)) }
        }
        source.resume()
        for number in [SIGTERM, SIGINT] {
            signal(number) { number in TerminationSignalPipe.wakeup.signal(UInt8(truncatingIfNeeded: number)) }
        }
        return [source]
    }

    /// Tells systemd we are ready when started as a Type=notify unit (no libsystemd needed).
    public static func notifyReady() {
        guard let path = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array("READY=1".utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, length) }
            }
        }
    }
}

/// The pipe between the termination signal handler and the Dispatch source that reports
/// it, created before any handler is installed and never closed (a late signal must not
/// meet a closed pipe).
private enum TerminationSignalPipe {
    static let wakeup = Wakeup()
}

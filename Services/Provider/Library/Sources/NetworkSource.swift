import Foundation

/// The `wifi` and `cell` plugins: position from the access points or the serving cell the
/// system sees, looked up in the local beacon database, learned from the device's own good
/// fixes. Scans come from running a tool periodically (`iw dev wlan0 scan dump`, `nmcli -t
/// -f BSSID,SSID,FREQ,SIGNAL dev wifi list`, `mmcli -m 0 --location-get`) or from a file or
/// stdin holding such outputs (see `ScanRecordSplitter`). Nothing leaves the host: scans are
/// read locally, the database is a local file, and only positions are published.
public struct NetworkSource: PositionSource {
    public enum Input: Sendable, Equatable {
        /// Run a shell command every `intervalSeconds` (the first time at once).
        case command(String, intervalSeconds: Double, timeoutSeconds: Double)
        /// Read scan outputs from a file, or stdin for `-`, until it ends.
        case file(path: String)
    }

    public var input: Input
    public var databasePath: String
    public var settings: NetworkLocator.Settings
    public var pacer: ReplayPacer
    /// A stream writer that pauses this long has finished a record without a `# scan` marker.
    public var idleFlushSeconds = 0.5
    public var plugin: String { settings.kind.rawValue }
    /// Fused fixes from the bus, for learning (posted by `ProviderLogic`).
    public let fusedFixes = FusedFixMailbox()

    public init(input: Input, databasePath: String, settings: NetworkLocator.Settings, pacer: ReplayPacer = ReplayPacer()) {
        self.input = input
        self.databasePath = databasePath
        self.settings = settings
        self.pacer = pacer
    }

    public func run(_ context: SourceContext) {
        let database: BeaconDatabase
        do { database = try BeaconDatabase(path: databasePath, mustExist: !settings.learns) } catch {
            context.status.set(.disconnected, note: error.message)
            context.problem(code: "sourceFailed", error.message)
            context.finish()
            return
        }
        if database.tightenedPermissions {
            context.problem(code: "permissions", "\(databasePath) was readable by others; its mode is now 0600")
        }
        let session = NetworkSession(context: context, locator: NetworkLocator(database: database, settings: settings),
                                     pacer: pacer, mailbox: fusedFixes)
        switch input {
        case let .command(command, interval, timeout):
            session.runCommand(CommandRunner(command: command, timeoutSeconds: timeout, maximumOutputBytes: ScanParser.maximumBytes),
                               intervalSeconds: interval)
        case .file(let path):
            session.runStream(path: path, idleFlushSeconds: idleFlushSeconds)
        }
    }
}

public import LocusService
public import LocusNATS
/// How a service runs: on the bus or as a `--stdio` filter, and with which timers.
public struct RuntimeSettings: Sendable {
    /// The short name used in topics: `health.<service>`, `error.<service>`.
    public var service: String
    /// The executable's name, used in log lines.
    public var program: String
    public var endpoints: BusEndpoints
    public var stdio: Bool
    public var instance: String
    public var healthIntervalSeconds: Double
    public var tickIntervalSeconds: Double = 1
    /// Whether bus messages (or stdin lines in `--stdio` mode) feed the logic. A provider reading
    /// a device sets this to false in `--stdio` mode: its input is the device, not stdin.
    public var readsInput = true
    /// Exit (after `finish`) once every injector has said `.finished`, e.g. when a replayed file ends.
    public var exitWhenSourcesFinish = false
    public var logLevel: ServiceLog.Level
    /// Which devices this instance handles when several run side by side (`--shard K/N`).
    public var shard: Shard = .whole
    /// CURVE client keys for a tcp bus with authentication; nil keeps NULL security (ipc).
    public var curve: CurveClientOptions?
    /// On NATS (`--partition K/N`): the server's device partition this instance consumes.
    public var partition: Shard?
    /// On NATS: the credentials file (`--nats-credentials`).
    public var natsCredentialsFile: String?
    /// On NATS: how positions travel (`--fix-delivery`).
    public var fixDelivery: FixDelivery = .durable

    /// Whether the endpoints name a NATS cluster rather than the ZeroMQ bus.
    public var usesNATS: Bool { NATSEndpoint.isNATS(endpoints.pub) }

    public init(service: String, program: String, endpoints: BusEndpoints, stdio: Bool = false,
                instance: String = "main", healthIntervalSeconds: Double = 2, logLevel: ServiceLog.Level = .info) {
        self.service = service
        self.program = program
        self.endpoints = endpoints
        self.stdio = stdio
        self.instance = instance
        self.healthIntervalSeconds = healthIntervalSeconds
        self.logLevel = logLevel
    }

    /// Settings from the common options of `ServiceProgram` (exits 64 on a bad value).
    public init(service: String, program: String, options: ParsedOptions) {
        var endpoints = BusEndpoints.fromEnvironment()
        if let pub = options.string("--pub") { endpoints.pub = pub }
        if let sub = options.string("--sub") { endpoints.sub = sub }
        let interval: Double
        do { interval = try options.double("--health-interval") ?? 2 } catch {
            ServiceProgram.usageFailure(program, error.message)
        }
        guard interval > 0 && interval <= 5 else {
            ServiceProgram.usageFailure(program, "--health-interval must be in (0, 5] seconds")
        }
        self.init(service: service, program: program, endpoints: endpoints, stdio: options.flag("--stdio"),
                  instance: options.string("--instance") ?? "main", healthIntervalSeconds: interval,
                  logLevel: ServiceProgram.logLevel(options, program: program))
        if let text = options.string("--shard") {
            guard let shard = Shard(text) else {
                ServiceProgram.usageFailure(program, "--shard must be K/N with 0 <= K < N, got '\(text)'")
            }
            self.shard = shard
            if shard.count > 1 && options.string("--instance") == "main" { instance = "shard\(shard.index)" }
        }
        natsCredentialsFile = options.string("--nats-credentials")
        if let text = options.string("--partition") {
            guard let partition = Shard(text) else {
                ServiceProgram.usageFailure(program, "--partition must be K/N with 0 <= K < N, got '\(text)'")
            }
            guard usesNATS else {
                ServiceProgram.usageFailure(program, "--partition needs a NATS bus (--pub nats://…); on the ZeroMQ bus use --shard")
            }
            self.partition = partition
            if options.string("--instance") == "main" { instance = "p\(partition.index)" }
        }
        if let text = options.string("--fix-delivery") {
            guard let delivery = FixDelivery(option: text) else {
                ServiceProgram.usageFailure(program, "--fix-delivery must be durable or plain, got '\(text)'")
            }
            fixDelivery = delivery
        }
        do {
            curve = try CurveClientOptions.load(keyFile: options.string("--curve-key"),
                                                serverKeyFile: options.string("--curve-server-key"))
        } catch {
            ServiceProgram.usageFailure(program, error.message)
        }
    }

    public var source: String { "\(service)/\(instance)" }
}

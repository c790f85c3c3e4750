public import LocusService
public import LocusProtocol
import LocusGeo
import LocusStore

/// Region monitoring as Core Location does it, for many devices at once: takes
/// `region.cmd` commands, `auth.status.*` and `location.fused.*` fixes, and returns
/// `region.state.<owner>` replies and `region.event.<owner>` events.
///
/// All timing uses fix time. State changes are written through `persistence` before the
/// events they cause are returned for publishing: after each input, or — with
/// `commitsOnFlush` — once per batch in `flush(now:)`. Until then the logic keeps those
/// messages itself (`unconfirmed`). Region commands commit before they are answered
/// (`CommandGroup`); when the commit fails the regions' earlier state stays and the answer is
/// `region.failed` with code `storage`. When fix work cannot be written, it and its events are held in memory,
/// input is refused (`acceptsInput`) and `retryHeld` writes them once storage works again.
public struct GeofenceLogic: ServiceLogic {
    public let configuration: GeofenceConfiguration
    public internal(set) var store: RegionStore
    public internal(set) var gate: AuthorizationGate
    /// When true, `receive` leaves its writes pending and `flush(now:)` commits a whole
    /// batch in one transaction. Only for a runtime that holds every message of a batch
    /// until `flush` (`ServiceRuntime` does); false commits after every input.
    public var commitsOnFlush = false
    let hysteresis: Hysteresis
    let persistence: (any GeofencePersistence)?
    /// Device name → position in `trackers`: one string hash per fix, then array access.
    var deviceNumbers: [String: Int] = [:]
    var trackers: [DeviceTracker] = []
    var counters = GeofenceCounters()
    var storage = StorageGuard()
    /// Messages that report state not yet committed: published once it is.
    var unconfirmed: [Outbound] = []
    var commands = CommandGroup()
    var scratch: [Int] = []
    /// Per device number: what its late fixes said about each region so far (`LateCrossings`).
    var lateHistory: [Int: [Int: LateCrossings.Verdict]] = [:]
    var gathered: [RegionEssentials] = []
    var pending = PersistenceBatch()
    /// Set by `keepOutputUntilConfirmed`: region events are named here and kept with the state.
    var keptSource: String?
    var keptIDs = MessageIDGenerator()
    /// Events kept with the state and not yet confirmed.
    var keptOutstanding = false
    /// What an earlier run kept and never saw confirmed, until the runtime takes it.
    var unsentKept: [KeptMessage] = []
    /// The store keeps each device's last fix (`GeofencePersistence.keepsLastFixes`).
    var keepsLastFixes = false

    public let subscriptions = [Topic.locationFusedPrefix, Topic.locationLatePrefix, Topic.regionCmd, Topic.authStatusPrefix]
    /// A fleet's fixes keep the logic busy on its own: decoding the next batch runs beside it.
    public var receivesOnReaderThread: Bool { true }

    /// Loads earlier state from `persistence`; devices found there reconcile on their next fix.
    public init(configuration: GeofenceConfiguration, persistence: (any GeofencePersistence)? = nil) throws {
        self.configuration = configuration
        self.store = RegionStore(configuration: configuration)
        self.gate = AuthorizationGate(defaultStatus: configuration.defaultAuthorization)
        self.hysteresis = Hysteresis(factor: configuration.confidenceFactor)
        self.persistence = persistence
        guard let persistence else { return }
        try restore(persistence.load())
        keepsLastFixes = persistence.keepsLastFixes
    }

    /// Every device seen, with what the service knows about it.
    public var devices: [String: DeviceTracker] { deviceNumbers.mapValues { trackers[$0] } }

    /// What the service knows about one device, if it has been seen.
    public func tracker(for device: String) -> DeviceTracker? { deviceNumbers[device].map { trackers[$0] } }

    mutating func deviceNumber(_ device: String) -> Int {
        if let number = deviceNumbers[device] { return number }
        trackers.append(DeviceTracker())
        deviceNumbers[device] = trackers.count - 1
        return trackers.count - 1
    }

    // MARK: ServiceLogic

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        var out: [Outbound] = []
        // Answers that depend on no commit (commands refused for lack of storage).
        var direct: [Outbound] = []
        switch message.body {
        case .regionAdd, .regionRemove: break
        default: closeCommands(into: &direct)
        }
        switch message.body {
        case .location(let fix) where topic.hasPrefix(Topic.locationFusedPrefix):
            counters.fixes += 1
            process(fix, t: message.envelope.t, into: &out)
        case .location(let fix) where topic.hasPrefix(Topic.locationLatePrefix):
            counters.fixes += 1
            processLate(fix, t: message.envelope.t, number: deviceNumber(fix.device), into: &out)
        case .regionAdd(let command) where topic == Topic.regionCmd:
            counters.commands += 1
            add(command, id: message.envelope.id, t: message.envelope.t, into: &out)
        case .regionRemove(let command) where topic == Topic.regionCmd:
            counters.commands += 1
            remove(command, id: message.envelope.id, t: message.envelope.t)
        case .regionListRequest(let command) where topic == Topic.regionCmd:
            counters.commands += 1
            list(command, id: message.envelope.id, t: message.envelope.t, into: &out)
        case .regionRequestState(let command) where topic == Topic.regionCmd:
            counters.commands += 1
            requestState(command, id: message.envelope.id, t: message.envelope.t, into: &out)
        case .authStatus(let status) where topic.hasPrefix(Topic.authStatusPrefix):
            gate.update(status.client, status: status.status)
        default:
            counters.ignored += 1
        }
        hold(out)
        if commitsOnFlush { return direct }
        closeCommands(into: &direct)
        return direct + commit(t: message.envelope.t)
    }

    /// Ends the regions whose `expires` time has come (see `expire`): on the bus every
    /// tick, in `--stdio` mode after every input (time is then the messages' own). The exits
    /// and removals wait, like every message reporting state, until the removal is committed.
    public mutating func tick(now: Double) -> [Outbound] {
        guard store.nextExpiry <= now else { return [] }
        var direct: [Outbound] = []
        closeCommands(into: &direct)
        var out: [Outbound] = []
        for region in store.expired(by: now) { expire(region, now: now, into: &out) }
        hold(out)
        if commitsOnFlush { return direct }
        return direct + commit(t: now)
    }

    /// Commits what the batch changed, in one transaction, and returns the batch's messages
    /// for publishing; during a storage episode they stay held (`retryHeld` writes them).
    public mutating func flush(now: Double) -> [Outbound] {
        var out: [Outbound] = []
        closeCommands(into: &out)
        return out + commit(t: now)
    }

    /// Writes what the batch changed before the runtime stops; one last try during an
    /// episode. What still cannot be written was never published, so nothing reported is lost.
    public mutating func finish(now: Double) -> [Outbound] {
        if storage.isFailing { return retryHeld(now: .infinity) }
        return flush(now: now)
    }

    /// False while state cannot be written: the runtime stops feeding fixes and commands.
    public var acceptsInput: Bool { !storage.isFailing }

    public var healthCounters: [String: Int] {
        var values = counters.values.merging(storage.counters) { $1 }
        values["regions"] = store.count
        values["devices"] = trackers.count
        if storage.isFailing { values["heldMessages"] = unconfirmed.count }
        return values
    }

    public var healthState: HealthState { storage.healthState }

    public var healthDetail: [String: String]? { storage.isFailing ? storage.healthDetail : nil }
}

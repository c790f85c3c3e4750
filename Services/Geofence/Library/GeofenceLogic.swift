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
    public private(set) var store: RegionStore
    public private(set) var gate: AuthorizationGate
    /// When true, `receive` leaves its writes pending and `flush(now:)` commits a whole
    /// batch in one transaction. Only for a runtime that holds every message of a batch
    /// until `flush` (`ServiceRuntime` does); false commits after every input.
    public var commitsOnFlush = false
    let hysteresis: Hysteresis
    private let persistence: (any GeofencePersistence)?
    /// Device name → position in `trackers`: one string hash per fix, then array access.
    private var deviceNumbers: [String: Int] = [:]
    var trackers: [DeviceTracker] = []
    var counters = GeofenceCounters()
    private var storage = StorageGuard()
    /// Messages that report state not yet committed: published once it is.
    private var unconfirmed: [Outbound] = []
    private var commands = CommandGroup()
    var scratch: [Int] = []
    /// Per device number: what its late fixes said about each region so far (`LateCrossings`).
    var lateHistory: [Int: [Int: LateCrossings.Verdict]] = [:]
    private var gathered: [RegionEssentials] = []
    private var pending = PersistenceBatch()
    /// Set by `keepOutputUntilConfirmed`: region events are named here and kept with the state.
    private var keptSource: String?
    private var keptIDs = MessageIDGenerator()
    /// Events kept with the state and not yet confirmed.
    private var keptOutstanding = false
    /// What an earlier run kept and never saw confirmed, until the runtime takes it.
    private var unsentKept: [KeptMessage] = []
    /// The store keeps each device's last fix (`GeofencePersistence.keepsLastFixes`).
    private var keepsLastFixes = false

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
        let snapshot = try persistence.load()
        for stored in snapshot.regions {
            guard let (shape, effective) = try? RegionShapeConversion.shape(from: stored.region.shape, configuration: configuration) else { continue }
            let key = RegionKey(owner: stored.owner, id: stored.region.id)
            store.restore(MonitoredRegion(key: key, region: stored.region, shape: shape, effectiveRadiusMeters: effective,
                                          generation: stored.generation))
        }
        for (device, checked) in snapshot.devices {
            let number = deviceNumber(device)
            trackers[number].checkedThrough = checked
            trackers[number].recovering = true
        }
        for stored in snapshot.tracks {
            // A track of a region that is gone has nothing left to report.
            guard let region = store.region(stored.key) else { continue }
            var track = RegionTrack(generation: stored.generation, state: stored.state, entryCause: stored.entryCause)
            if let enteredAt = stored.enteredAt {
                track.dwell = DwellTimer(enteredAt: enteredAt, fired: stored.dwellFired)
            }
            let number = deviceNumber(stored.device)
            trackers[number].tracks[region.slot] = track
            trackers[number].recovering = true
        }
        for (device, fix) in snapshot.lastFixes {
            let number = deviceNumber(device)
            trackers[number].lastFix = fix
            trackers[number].recovering = true
        }
        keepsLastFixes = persistence.keepsLastFixes
        unsentKept = snapshot.kept
        keptOutstanding = !unsentKept.isEmpty
    }

    /// Every device seen, with what the service knows about it.
    public var devices: [String: DeviceTracker] { deviceNumbers.mapValues { trackers[$0] } }

    /// What the service knows about one device, if it has been seen.
    public func tracker(for device: String) -> DeviceTracker? { deviceNumbers[device].map { trackers[$0] } }

    private mutating func deviceNumber(_ device: String) -> Int {
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
            let regions = store.regions(of: command.owner).map(\.region)
            out.append(Outbound(topic: Topic.regionState(command.owner),
                                body: .regionList(RegionListReply(owner: command.owner, regions: regions, re: message.envelope.id)),
                                t: message.envelope.t))
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

    /// Writes the held state again when the back-off allows; once it is written the held
    /// messages are released and input is taken again. The database gets ready first: its
    /// log folded back on a full disk, its file put back after its directory was removed.
    public mutating func retryHeld(now: Double) -> [Outbound] {
        guard storage.isFailing, storage.isRetryDue(now: now), let persistence else { return [] }
        do {
            if let fault = storage.fault { try persistence.prepareRetry(after: fault) }
            if pending.isEmpty { try persistence.probe() } else { try persistence.apply(pending) }
        } catch {
            _ = storage.failed(StorageFault.from(error, path: persistence.location), now: now, holding: "")
            return []
        }
        pending.removeAll()
        storage.succeeded()
        return release()
    }

    /// Region events are kept with the state until the transport confirms them: a geofence
    /// killed after committing a crossing and before its event was stored sends the event
    /// at its next start instead of finding the crossing already done.
    public mutating func keepOutputUntilConfirmed(source: String) {
        guard persistence != nil else { return }
        keptSource = source
    }

    /// Holds messages until their state is committed; region events to keep are named now
    /// and written in that same commit.
    private mutating func hold(_ out: [Outbound]) {
        guard let source = keptSource else {
            unconfirmed.append(contentsOf: out)
            return
        }
        for var outbound in out {
            if outbound.topic.hasPrefix(Topic.regionEventPrefix) {
                let id = keptIDs.next()
                outbound.id = id
                pending.kept.append(KeptMessage(topic: outbound.topic, message: Message(body: outbound.body, id: id, t: outbound.t, src: source)))
                keptOutstanding = true
            }
            unconfirmed.append(outbound)
        }
    }

    public mutating func keptMessagesConfirmed() {
        guard keptOutstanding else { return }
        keptOutstanding = false
        pending.clearsKept = true
    }

    public mutating func takeUnconfirmedMessages() -> [KeptMessage] {
        defer { unsentKept = [] }
        return unsentKept
    }

    public var healthCounters: [String: Int] {
        var values = counters.values.merging(storage.counters) { $1 }
        values["regions"] = store.count
        values["devices"] = trackers.count
        if storage.isFailing { values["heldMessages"] = unconfirmed.count }
        return values
    }

    public var healthState: HealthState { storage.healthState }

    public var healthDetail: [String: String]? { storage.isFailing ? storage.healthDetail : nil }

    // MARK: Commands

    private mutating func add(_ command: RegionAdd, id: String, t: Double, into out: inout [Outbound]) {
        let owner = command.owner
        guard gate.allowsMonitoring(owner) else {
            fail(owner: owner, regionId: command.region.id,
                 RegionRejection(.notAuthorized, gate.refusal(owner)),
                 re: id, t: t, into: &out)
            return
        }
        do {
            let key = RegionKey(owner: owner, id: command.region.id)
            let previous = store.region(key)
            let added = try store.add(command.region, owner: owner, at: t)
            let answer = Outbound(topic: Topic.regionState(owner),
                                  body: .regionAdded(RegionAdded(owner: owner, region: command.region, re: id,
                                                                 effectiveRadius: added.monitored.effectiveRadiusMeters)),
                                  t: t)
            guard added.changed else {
                counters.regionsAdded += 1
                out.append(answer)  // the stored region is this one already
                return
            }
            let before = pending
            pending.upsertRegion(PersistedRegion(owner: owner, region: command.region, generation: added.monitored.generation))
            let failure = RegionFailed(owner: owner, regionId: command.region.id, code: .storage, message: "region not saved", re: id)
            let undo: CommandGroup.Undo = previous.map { .restore($0) } ?? .remove(key)
            commands.append(.init(undo: undo, answer: answer, failure: failure, t: t), pendingBefore: before)
        } catch {
            fail(owner: owner, regionId: command.region.id, error, re: id, t: t, into: &out)
        }
    }

    private mutating func remove(_ command: RegionRemove, id: String, t: Double) {
        let key = RegionKey(owner: command.owner, id: command.regionId)
        // Removing an absent region succeeds too, so a client can retry safely.
        let answer = Outbound(topic: Topic.regionState(command.owner),
                              body: .regionRemoved(RegionRemoved(owner: command.owner, regionId: command.regionId, re: id)), t: t)
        guard let removed = store.remove(key) else {
            unconfirmed.append(answer)
            return
        }
        let before = pending
        pending.deleteRegion(key)
        // Taken back, the region returns to the slot it had, so its devices' tracks stay valid.
        let failure = RegionFailed(owner: command.owner, regionId: command.regionId, code: .storage, message: "removal not saved", re: id)
        commands.append(.init(undo: .restore(removed), answer: answer, failure: failure, t: t), pendingBefore: before)
    }

    /// At its `expires` time a region sends one `exit` (cause `expired`) to every device
    /// still inside, then is removed and `region.removed` published. The removal is in the
    /// same transaction that the runtime commits before publishing these, so the exits
    /// are sent once, and a service down at the expiry sends them when it is back.
    private mutating func expire(_ region: MonitoredRegion, now: Double, into out: inout [Outbound]) {
        let owner = region.key.owner
        let at = region.region.expires ?? now
        for (device, number) in deviceNumbers.sorted(by: { $0.key < $1.key }) where region.watches(device) {
            guard trackers[number].state(for: region) == .inside else { continue }
            trackers[number].tracks[region.slot] = nil
            guard region.region.notifyOnExit else { continue }
            guard gate.allowsMonitoring(owner) else {
                counters.eventsSuppressed += 1
                continue
            }
            counters.events += 1
            let location = trackers[number].lastFix ?? Self.covering(region.shape, t: at)
            let event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: .exit, state: .outside,
                                    cause: .expired, location: location)
            out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: at))
        }
        store.remove(region.key)
        pending.deleteRegion(region.key)
        counters.regionsRemoved += 1
        out.append(Outbound(topic: Topic.regionState(owner), body: .regionRemoved(RegionRemoved(owner: owner, regionId: region.key.id)),
                            t: at))
    }

    /// A device known to be inside but not yet seen since a restart: a circle around the
    /// region's box that covers it (the device was somewhere in there).
    private static func covering(_ shape: Shape, t: Double) -> FixRef {
        let box = shape.boundingBox
        let centre = Coordinate(lat: (box.minLat + box.maxLat) / 2, lon: (box.minLon + box.maxLon) / 2)
        let corner = Coordinate(lat: box.maxLat, lon: box.maxLon)
        return FixRef(lat: centre.lat, lon: centre.lon, hacc: max(1, FastDistance.meters(centre, corner) * 1.01), t: t)
    }

    private mutating func fail(owner: String, regionId: String, _ rejection: RegionRejection, re: String, t: Double,
                               into out: inout [Outbound]) {
        counters.regionsFailed += 1
        out.append(Outbound(topic: Topic.regionState(owner),
                            body: .regionFailed(RegionFailed(owner: owner, regionId: regionId, code: rejection.code,
                                                             message: rejection.message, re: re)),
                            t: t))
    }

    /// Answers with one `state` event per (region, device) that has a known last fix,
    /// as Core Location's `requestState(for:)` does.
    private mutating func requestState(_ command: RegionRequestState, id: String, t: Double, into out: inout [Outbound]) {
        let owner = command.owner
        guard gate.allowsMonitoring(owner) else {
            fail(owner: owner, regionId: command.regionId ?? "*",
                 RegionRejection(.notAuthorized, gate.refusal(owner)), re: id, t: t, into: &out)
            return
        }
        let regions = command.regionId.map { store.region(RegionKey(owner: owner, id: $0)).map { [$0] } ?? [] } ?? store.regions(of: owner)
        let deviceNames = command.device.map { [$0] } ?? deviceNumbers.keys.sorted()
        for region in regions {
            for device in deviceNames where region.watches(device) {
                guard let tracker = tracker(for: device), let fix = tracker.lastFix else { continue }
                let event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: .state,
                                        state: tracker.state(for: region), cause: .requested, location: fix, re: id)
                out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: t))
            }
        }
    }

    // MARK: Fixes

    private mutating func process(_ location: Location, t: Double, into out: inout [Outbound]) {
        let device = location.device
        let point = Coordinate(lat: location.lat, lon: location.lon)
        let fix = FixRef(lat: location.lat, lon: location.lon, hacc: location.hacc, t: t)
        let number = deviceNumber(device)
        if trackers[number].recovering, keepsLastFixes, let last = trackers[number].lastFix, t <= last.t {
            // At or before the last fix the store kept: handled before a restart and
            // delivered again (its effects and events are in the stored record).
            counters.staleFixes += 1
            return
        }
        if let last = trackers[number].lastFix, t < last.t {
            // Out of order: time logic only moves forward; an older fix is history.
            processLate(location, t: t, number: number, into: &out)
            return
        }
        if lateHistory[number] != nil { lateHistory[number] = nil }  // a current fix ends a run of late ones
        if let zone = trackers[number].quiet,
           zone.admits(point, t: t, marginMeters: hysteresis.marginMeters(hacc: location.hacc), revision: store.revision) {
            counters.quietFixes += 1
            trackers[number].lastFix = fix
            if keepsLastFixes { pending.lastFixes[device] = fix }
            trackers[number].tracksLagLastFix = true
            return
        }
        // The tracker is updated in place through an inout access; the array is moved out
        // of `self` for it so that `update` may still change the rest of `self`.
        var all = trackers
        trackers = []
        defer { trackers = all }
        update(&all[number], device: device, point: point, fix: fix, hacc: location.hacc, into: &out)
    }

    private mutating func update(_ tracker: inout DeviceTracker, device: String, point: Coordinate, fix: FixRef, hacc: Double,
                                 into out: inout [Outbound]) {
        let margin = hysteresis.marginMeters(hacc: hacc)
        scratch.removeAll(keepingCapacity: true)
        let farMeters = store.candidateSlots(near: point, marginMeters: margin, into: &scratch)
        var quiet = QuietZoneBuilder()
        let nearCount = scratch.count
        for position in 0..<tracker.tracks.count {
            let slot = tracker.tracks.slot(at: position)
            if !scratch[..<nearCount].contains(slot) { scratch.append(slot) }
        }
        // Every candidate's essentials first, in a loop of independent loads, so their cache
        // misses overlap instead of each waiting for the previous candidate's work.
        gathered.removeAll(keepingCapacity: true)
        for slot in scratch { gathered.append(store.essentials(inSlot: slot)) }
        for (position, slot) in scratch.enumerated() {
            // The slot's essentials decide most candidates; the filed region is read only
            // for a device list, a polygon, an event or a row (see `RegionEssentials`).
            var region = gathered[position]
            guard region.isOccupied, region.watchesEveryDevice || store.filed(inSlot: slot)?.monitored.watches(device) == true else {
                tracker.tracks[slot] = nil
                continue
            }
            if region.scheduled {
                // Outside its hours a region is not evaluated (its tracks wait); a new
                // window gives it a new generation, so states start over and are reported.
                switch store.scheduleStep(slot: slot, t: fix.t) {
                case .inactive:
                    quiet.exclude()
                    continue
                case .active: break
                case .activated(let monitored):
                    pending.upsertRegion(PersistedRegion(owner: monitored.key.owner, region: monitored.region, generation: monitored.generation))
                    region = store.essentials(inSlot: slot)
                }
            }
            let generation = region.generation
            let stored = tracker.tracks.position(of: slot)
            var track = stored.map { tracker.tracks.track(at: $0) }
                ?? RegionTrack(generation: generation, state: tracker.state(slot: slot, generation: generation))
            if track.generation != generation { track = RegionTrack(generation: generation, state: .unknown) }
            if track.lastSignedDistanceMeters == nil || tracker.tracksLagLastFix, let previous = tracker.lastFix {
                track.lastSignedDistanceMeters = signedDistance(region, slot: slot, Coordinate(lat: previous.lat, lon: previous.lon),
                                                                 marginMeters: hysteresis.marginMeters(hacc: previous.hacc))
                track.lastFixTime = previous.t
            }
            let before = (state: track.state, dwell: track.dwell)
            var distance = signedDistance(region, slot: slot, point, marginMeters: margin)
            if region.circle == nil, let last = track.lastSignedDistanceMeters, (last < 0) != (distance < 0) {
                // A polygon answers far from its boundary with a bound; a crossing is
                // interpolated from the two fixes' true distances.
                distance = signedDistance(region, slot: slot, point, marginMeters: .infinity)
                if let previous = tracker.lastFix, previous.t == track.lastFixTime {
                    track.lastSignedDistanceMeters = signedDistance(region, slot: slot, Coordinate(lat: previous.lat, lon: previous.lon),
                                                                     marginMeters: .infinity)
                }
            }
            evaluate(&track, region: region, slot: slot, device: device, distance: distance, fix: fix, recovering: tracker.recovering,
                     announce: region.scheduled && store.announces(slot: slot, generation: region.generation), into: &out)
            quiet.observe(track, region: region, distance: distance, debounceSeconds: configuration.debounceSeconds)
            // Only changes of committed state or dwell are written. A first decision of
            // "outside" needs no row either: after a restart a region without a row is
            // outside for a device checked through its generation, which this batch stores.
            let firstOutside = before.state == .unknown && track.state == .outside
            let durable = !firstOutside && (track.state != before.state || track.dwell != before.dwell)
            if track.state == .outside && track.debounce.candidate == nil && position >= nearCount {
                tracker.tracks[slot] = nil  // far and settled outside: implied from now on
            } else if let stored {
                tracker.tracks.replaceTrack(at: stored, with: track)
            } else {
                tracker.tracks[slot] = track
            }
            if durable && track.state != .unknown, let filed = store.filed(inSlot: slot) {
                pending.trackUpserts.append(PersistedTrack(device: device, key: filed.monitored.key, generation: track.generation,
                                                           state: track.state, entryCause: track.entryCause,
                                                           enteredAt: track.dwell.enteredAt, dwellFired: track.dwell.fired))
            }
        }
        let checked = store.nextGeneration - 1
        if tracker.checkedThrough != checked {
            tracker.checkedThrough = checked
            pending.deviceUpserts[device] = checked
        }
        tracker.lastFix = fix
        if keepsLastFixes { pending.lastFixes[device] = fix }
        tracker.recovering = false
        tracker.tracksLagLastFix = false
        tracker.quiet = configuration.quietZones ? quiet.zone(anchor: point, farMeters: farMeters, revision: store.revision) : nil
    }

    /// The signed distance, exact wherever it matters: for a circle the estimate decides unless it lies
    /// within its error of a threshold the decisions compare it with (the boundary, where
    /// the sign sets the crossing, and ± the fix's margin); only then is the exact geodesic
    /// computed. Elsewhere the value differs from the exact one by micrometres, which
    /// moves an interpolated crossing time by nothing measurable.
    func signedDistance(_ region: RegionEssentials, slot: Int, _ point: Coordinate, marginMeters margin: Double) -> Double {
        if let circle = region.circle {
            let (estimate, error) = circle.signedDistanceEstimate(point)
            return Self.needsExact(estimate, error: error, margin: margin) ? circle.signedDistance(point) : estimate
        }
        // A polygon's distance is searched only when it may be within the margin: deeper
        // inside or farther out, its grid answers with a bound that decides the same way.
        if let probe = store.probe(inSlot: slot) { return probe.signedDistanceMeters(point, exactWithin: margin) }
        guard let shape = store.filed(inSlot: slot)?.monitored.shape else { return .infinity }
        return shape.signedDistanceMeters(point, exactWithin: margin)
    }

    @inline(__always)
    private static func needsExact(_ estimate: Double, error: Double, margin: Double) -> Bool {
        guard error > 0 else { return false }
        let size = abs(estimate)
        return size <= error || abs(size - margin) <= error
    }

    /// `announce`: the first decision is reported as a `state` event (a scheduled region's
    /// hours began again) instead of silently.
    private mutating func evaluate(_ track: inout RegionTrack, region: RegionEssentials, slot: Int, device: String, distance: Double,
                                   fix: FixRef, recovering: Bool, announce: Bool = false, into out: inout [Outbound]) {
        let verdict = hysteresis.verdict(signedDistanceMeters: distance, hacc: fix.hacc)
        if let lastTime = track.lastFixTime, let lastDistance = track.lastSignedDistanceMeters,
           let crossing = CrossingInterpolation.time(from: lastTime, signedDistance: lastDistance, to: fix.t, signedDistance: distance) {
            track.crossingTime = crossing
        }
        track.lastFixTime = fix.t
        track.lastSignedDistanceMeters = distance
        let vote: Bool? = verdict == .inside ? true : verdict == .outside ? false : nil

        switch track.state {
        case .unknown:
            // The first decision is silent: Core Location reports no entry for a region
            // registered while the device is already inside.
            guard let vote else { return }
            track.state = vote ? .inside : .outside
            track.entryCause = announce ? .activated : .initial
            if vote { track.dwell.start(at: fix.t) }
            track.debounce.reset()
            if announce {
                emit(slot: slot, device: device, kind: .state, state: track.state, cause: .activated, fix: fix, crossingTime: nil, into: &out)
            }
        case .inside, .outside:
            let committed = track.state == .inside
            let changed: Bool?
            let cause: RegionEventCause
            if recovering, let vote, vote != committed {
                // Missed while the service was down: report it once, now.
                changed = vote
                cause = .recovered
                track.crossingTime = nil
            } else {
                changed = track.debounce.observe(vote: vote, committed: committed, fixTime: fix.t, seconds: configuration.debounceSeconds)
                cause = .crossing
            }
            if let inside = changed {
                track.debounce.reset()
                track.state = inside ? .inside : .outside
                track.entryCause = cause
                if inside { track.dwell.start(at: track.crossingTime ?? fix.t) } else { track.dwell.stop() }
                let wanted = inside ? region.notifyOnEntry : region.notifyOnExit
                if wanted {
                    emit(slot: slot, device: device, kind: inside ? .enter : .exit, state: track.state, cause: cause,
                         fix: fix, crossingTime: cause == .crossing ? track.crossingTime : nil, into: &out)
                }
                track.crossingTime = nil
            }
        }
        if track.state == .inside, track.dwell.shouldFire(fixTime: fix.t, dwellSeconds: region.dwellSeconds) {
            emit(slot: slot, device: device, kind: .dwell, state: .inside, cause: track.entryCause, fix: fix, crossingTime: nil,
                 into: &out)
        }
    }

    mutating func emit(slot: Int, device: String, kind: RegionEventKind, state: RegionState,
                               cause: RegionEventCause, fix: FixRef, crossingTime: Double?, into out: inout [Outbound]) {
        guard let region = store.filed(inSlot: slot)?.monitored else { return }
        let owner = region.key.owner
        // An owner whose authorization dropped gets no events; its states keep tracking,
        // so restoring it does not produce stale transitions.
        guard gate.allowsMonitoring(owner) else {
            counters.eventsSuppressed += 1
            return
        }
        counters.events += 1
        var event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: kind, state: state, cause: cause,
                                location: fix, crossingTime: crossingTime)
        guard case .corridor(let corridor) = region.shape else {
            out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
            return
        }
        // A corridor says where along the route and how far off it the deciding fix was.
        let nearest = corridor.nearest(Coordinate(lat: fix.lat, lon: fix.lon))
        event.progress = nearest.progressMeters
        event.offRoute = nearest.distanceMeters
        out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
        if kind == .exit, nearest.progressMeters > 0, nearest.progressMeters < corridor.lengthMeters {
            // Left through a side, not past either end of the route.
            counters.events += 1
            event.event = .deviated
            out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
        }
    }

    // MARK: Durability

    /// Commits the open command group with everything pending before it; its answers then
    /// join the messages to release. If that fails (or an episode is going on) every command
    /// of the group is taken back and answered `region.failed` (`storage`) in `direct`, and
    /// the writes pending before the group stay held.
    private mutating func closeCommands(into direct: inout [Outbound]) {
        guard !commands.isEmpty else { return }
        let (base, entries) = commands.take()
        var fault = storage.fault
        if fault == nil, let persistence {
            do { try persistence.apply(pending) } catch {
                fault = StorageFault.from(error, path: persistence.location)
                startEpisode(fault!, t: entries[0].t, into: &direct)
            }
        }
        guard let fault else {
            pending.removeAll()
            for entry in entries {
                if case .regionAdded = entry.answer.body { counters.regionsAdded += 1 } else { counters.regionsRemoved += 1 }
                unconfirmed.append(entry.answer)
            }
            return
        }
        pending = base ?? PersistenceBatch()
        for entry in entries.reversed() {
            switch entry.undo {
            case .remove(let key): store.remove(key)
            case .restore(let region): store.restore(region)
            }
        }
        for entry in entries {
            var failure = entry.failure
            failure.message += ": \(fault)"
            counters.regionsFailed += 1
            direct.append(Outbound(topic: Topic.regionState(failure.owner), body: .regionFailed(failure), t: entry.t))
        }
    }

    /// Writes what changed since the last commit and releases the messages waiting for it;
    /// on failure keeps both, starts an episode and returns its report.
    private mutating func commit(t: Double) -> [Outbound] {
        if storage.isFailing { return [] }
        guard !pending.isEmpty, let persistence else {
            pending.removeAll()
            return release()
        }
        do {
            try persistence.apply(pending)
        } catch {
            var report: [Outbound] = []
            startEpisode(StorageFault.from(error, path: persistence.location), t: t, into: &report)
            return report
        }
        pending.removeAll()
        return release()
    }

    private mutating func startEpisode(_ fault: StorageFault, t: Double, into out: inout [Outbound]) {
        if let report = storage.failed(fault, now: nil, holding: "holding fixes, commands and events") {
            out.append(Outbound(topic: Topic.error("geofence"), body: .error(report), t: t))
        }
    }

    /// The messages whose state is committed now.
    private mutating func release() -> [Outbound] {
        guard !unconfirmed.isEmpty else { return [] }
        defer { unconfirmed.removeAll(keepingCapacity: true) }
        return unconfirmed
    }
}

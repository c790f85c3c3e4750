public import LocusBus
public import LocusProtocol
import LocusGeo

/// Region monitoring as Core Location does it, for many devices at once: takes
/// `region.cmd` commands, `auth.status.*` and `location.fused.*` fixes, and returns
/// `region.state.<owner>` replies and `region.event.<owner>` events.
///
/// All timing uses fix time. State changes are written through `persistence` before the
/// events they cause are returned for publishing.
public struct GeofenceLogic: ServiceLogic {
    public let configuration: GeofenceConfiguration
    public private(set) var store: RegionStore
    public private(set) var devices: [String: DeviceTracker] = [:]
    public private(set) var gate: AuthorizationGate
    private let hysteresis: Hysteresis
    private let persistence: (any GeofencePersistence)?
    private var counters: [String: Int] = [:]
    private var storageProblem: String?
    private var scratch: [RegionKey] = []
    private var pending = PersistenceBatch()

    public let subscriptions = [Topic.locationFusedPrefix, Topic.regionCmd, Topic.authStatusPrefix]

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
            devices[device, default: DeviceTracker()].checkedThrough = checked
            devices[device]?.recovering = true
        }
        for stored in snapshot.tracks {
            var track = RegionTrack(generation: stored.generation, state: stored.state, entryCause: stored.entryCause)
            if let enteredAt = stored.enteredAt {
                track.dwell = DwellTimer(enteredAt: enteredAt, fired: stored.dwellFired)
            }
            devices[stored.device, default: DeviceTracker()].tracks[stored.key] = track
            devices[stored.device]?.recovering = true
        }
    }

    // MARK: ServiceLogic

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        var out: [Outbound] = []
        switch message.body {
        case .location(let fix) where topic.hasPrefix(Topic.locationFusedPrefix):
            count("fixes")
            process(fix, t: message.envelope.t, into: &out)
        case .regionAdd(let command) where topic == Topic.regionCmd:
            count("commands")
            add(command, id: message.envelope.id, t: message.envelope.t, into: &out)
        case .regionRemove(let command) where topic == Topic.regionCmd:
            count("commands")
            remove(command, id: message.envelope.id, t: message.envelope.t, into: &out)
        case .regionListRequest(let command) where topic == Topic.regionCmd:
            count("commands")
            let regions = store.regions(of: command.owner).map(\.region)
            out.append(Outbound(topic: Topic.regionState(command.owner),
                                body: .regionList(RegionListReply(owner: command.owner, regions: regions, re: message.envelope.id)),
                                t: message.envelope.t))
        case .regionRequestState(let command) where topic == Topic.regionCmd:
            count("commands")
            requestState(command, id: message.envelope.id, t: message.envelope.t, into: &out)
        case .authStatus(let status) where topic.hasPrefix(Topic.authStatusPrefix):
            gate.update(status.client, status: status.status)
        default:
            count("ignored")
        }
        return commit(out, t: message.envelope.t)
    }

    public var healthCounters: [String: Int] {
        var values = counters
        values["regions"] = store.count
        values["devices"] = devices.count
        return values
    }

    public var healthState: HealthState { storageProblem == nil ? .ok : .degraded }

    public var healthDetail: [String: String]? { storageProblem.map { ["storage": $0] } }

    // MARK: Commands

    private mutating func add(_ command: RegionAdd, id: String, t: Double, into out: inout [Outbound]) {
        let owner = command.owner
        guard gate.allowsMonitoring(owner) else {
            fail(owner: owner, regionId: command.region.id,
                 RegionRejection(.notAuthorized, "owner \(owner) has authorization \(gate.status(of: owner).rawValue), region monitoring needs always"),
                 re: id, t: t, into: &out)
            return
        }
        do {
            let added = try store.add(command.region, owner: owner)
            if added.changed {
                pending.regionUpserts.append(PersistedRegion(owner: owner, region: command.region, generation: added.monitored.generation))
            }
            count("regionsAdded")
            out.append(Outbound(topic: Topic.regionState(owner),
                                body: .regionAdded(RegionAdded(owner: owner, region: command.region, re: id,
                                                               effectiveRadius: added.monitored.effectiveRadiusMeters)),
                                t: t))
        } catch {
            fail(owner: owner, regionId: command.region.id, error, re: id, t: t, into: &out)
        }
    }

    private mutating func remove(_ command: RegionRemove, id: String, t: Double, into out: inout [Outbound]) {
        let key = RegionKey(owner: command.owner, id: command.regionId)
        if store.remove(key) != nil {
            pending.regionDeletes.append(key)
            count("regionsRemoved")
        }
        // Removing an absent region succeeds too, so a client can retry safely.
        out.append(Outbound(topic: Topic.regionState(command.owner),
                            body: .regionRemoved(RegionRemoved(owner: command.owner, regionId: command.regionId, re: id)), t: t))
    }

    private mutating func fail(owner: String, regionId: String, _ rejection: RegionRejection, re: String, t: Double,
                               into out: inout [Outbound]) {
        count("regionsFailed")
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
                 RegionRejection(.notAuthorized, "owner \(owner) is not authorized for region monitoring"), re: id, t: t, into: &out)
            return
        }
        let regions = command.regionId.map { store.region(RegionKey(owner: owner, id: $0)).map { [$0] } ?? [] } ?? store.regions(of: owner)
        let deviceNames = command.device.map { [$0] } ?? devices.keys.sorted()
        for region in regions {
            for device in deviceNames where region.watches(device) {
                guard let tracker = devices[device], let fix = tracker.lastFix else { continue }
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
        var tracker = devices.removeValue(forKey: device) ?? DeviceTracker()
        if let last = tracker.lastFix, t < last.t {
            count("staleFixes")  // out of order: time logic only moves forward
            devices[device] = tracker
            return
        }
        scratch.removeAll(keepingCapacity: true)
        store.candidates(near: point, marginMeters: hysteresis.marginMeters(hacc: location.hacc), into: &scratch)
        let nearCount = scratch.count
        for key in tracker.tracks.keys where !scratch[..<nearCount].contains(key) { scratch.append(key) }
        for (position, key) in scratch.enumerated() {
            guard let region = store.region(key), region.watches(device) else {
                tracker.tracks[key] = nil
                continue
            }
            var track = tracker.tracks[key] ?? RegionTrack(generation: region.generation, state: tracker.state(for: region))
            if track.generation != region.generation { track = RegionTrack(generation: region.generation, state: .unknown) }
            if track.lastSignedDistanceMeters == nil, let previous = tracker.lastFix {
                track.lastSignedDistanceMeters = region.shape.signedDistanceMeters(Coordinate(lat: previous.lat, lon: previous.lon))
                track.lastFixTime = previous.t
            }
            let before = track
            evaluate(&track, region: region, device: device, point: point, fix: fix, recovering: tracker.recovering, into: &out)
            // Only changes of committed state or dwell are written; an unchanged implied
            // "outside" needs no row.
            let durable = track.state != before.state || track.dwell != before.dwell
            if track.state == .outside && track.debounce.candidate == nil && position >= nearCount {
                tracker.tracks[key] = nil  // far and settled outside: implied from now on
            } else {
                tracker.tracks[key] = track
            }
            if durable && track.state != .unknown {
                pending.trackUpserts.append(PersistedTrack(device: device, key: key, generation: track.generation, state: track.state,
                                                           entryCause: track.entryCause, enteredAt: track.dwell.enteredAt,
                                                           dwellFired: track.dwell.fired))
            }
        }
        let checked = store.nextGeneration - 1
        if tracker.checkedThrough != checked {
            tracker.checkedThrough = checked
            pending.deviceUpserts[device] = checked
        }
        tracker.lastFix = fix
        tracker.recovering = false
        devices[device] = tracker
    }

    private mutating func evaluate(_ track: inout RegionTrack, region: MonitoredRegion, device: String, point: Coordinate,
                                   fix: FixRef, recovering: Bool, into out: inout [Outbound]) {
        let distance = region.shape.signedDistanceMeters(point)
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
            track.entryCause = .initial
            if vote { track.dwell.start(at: fix.t) }
            track.debounce.reset()
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
                let wanted = inside ? region.region.notifyOnEntry : region.region.notifyOnExit
                if wanted {
                    emit(region: region, device: device, kind: inside ? .enter : .exit, state: track.state, cause: cause,
                         fix: fix, crossingTime: cause == .crossing ? track.crossingTime : nil, into: &out)
                }
                track.crossingTime = nil
            }
        }
        if track.state == .inside, track.dwell.shouldFire(fixTime: fix.t, dwellSeconds: region.region.dwell) {
            emit(region: region, device: device, kind: .dwell, state: .inside, cause: track.entryCause, fix: fix, crossingTime: nil,
                 into: &out)
        }
    }

    private mutating func emit(region: MonitoredRegion, device: String, kind: RegionEventKind, state: RegionState,
                               cause: RegionEventCause, fix: FixRef, crossingTime: Double?, into out: inout [Outbound]) {
        let owner = region.key.owner
        // An owner whose authorization dropped gets no events; its states keep tracking,
        // so restoring it does not produce stale transitions.
        guard gate.allowsMonitoring(owner) else {
            count("eventsSuppressed")
            return
        }
        count("events")
        let event = RegionEvent(owner: owner, regionId: region.key.id, device: device, event: kind, state: state, cause: cause,
                                location: fix, crossingTime: crossingTime)
        out.append(Outbound(topic: Topic.regionEvent(owner), body: .regionEvent(event), t: fix.t))
    }

    // MARK: Durability

    /// Writes what this input changed, then releases its messages.
    private mutating func commit(_ out: [Outbound], t: Double) -> [Outbound] {
        guard !pending.isEmpty else { return out }
        defer { pending = PersistenceBatch() }
        guard let persistence else { return out }
        do {
            try persistence.apply(pending)
            storageProblem = nil
            return out
        } catch {
            count("storageErrors")
            storageProblem = "\(error)"
            let report = ErrorReport(code: "storage", message: "could not save state: \(error)")
            return out + [Outbound(topic: Topic.error("geofence"), body: .error(report), t: t)]
        }
    }

    private mutating func count(_ name: String) {
        counters[name, default: 0] += 1
    }
}

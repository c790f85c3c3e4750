public import LocusService
import LocusGeo
import LocusStore
public import LocusProtocol

/// The fusion service's logic (docs/architecture.md): raw fixes of every source in, one
/// honest best estimate per device out, plus the reduced-accuracy, significant-change and
/// visit streams. Pure value logic; time comes from the messages' `t`.
public struct FusionLogic: ServiceLogic {
    public static let service = "fusion"

    public var configuration: FusionConfiguration
    /// Every device's state, in one array; `slots` finds a device's place. A fix takes its
    /// device's state out (`take()`, a move) and puts it back, so none of it is copied per fix.
    private var states: [DeviceState?] = []
    /// Each device's topics, beside its state (in the same slot).
    private var topics: [DeviceTopics] = []
    private var slots: [String: Int] = [:]
    var counters = Counters()
    /// The per-fix counts, kept as integers: no string is built or hashed per fix.
    var fixCounts = FixCounts()
    private var seenIDs: RecentIDs
    var store: LastKnownStore?
    /// Episodes of the last-known store; a fix not saved stays `unsavedFix` and is retried.
    var storage = StorageGuard()
    /// A storage report waiting for the next message out.
    var storageReports: [Outbound] = []
    /// Cached locations still to republish at the first call that knows the time.
    var pendingCache: [LastKnownStore.Entry]

    public init(configuration: FusionConfiguration = FusionConfiguration(), store: LastKnownStore? = nil) {
        self.configuration = configuration
        self.store = store
        self.seenIDs = RecentIDs(capacity: configuration.rememberedIDs)
        let loaded = store?.loadAll()
        self.pendingCache = loaded?.entries ?? []
        if let damaged = loaded?.damaged, !damaged.isEmpty { counters.add("cacheDamaged", damaged.count) }
    }

    public var subscriptions: [String] { [Topic.locationRawPrefix, Topic.controlPrefix, Topic.motionPrefix] }

    public var healthCounters: [String: Int] {
        counters.values.merging(fixCounts.values) { a, _ in a }.merging(["devices": states.count]) { a, _ in a }
    }

    /// The number of devices with state.
    public var deviceCount: Int { states.count }

    /// A device's state, for inspection.
    public func state(of device: String) -> DeviceState? { slots[device].flatMap { states[$0] } }

    public var healthState: HealthState { storage.healthState }

    public var healthDetail: [String: String]? { storage.isFailing ? storage.healthDetail : nil }

    // MARK: - ServiceLogic

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        // A storage report from the previous message goes out first.
        var out = storageReports + republishCache(now: now)
        storageReports.removeAll()
        guard seenIDs.insert(message.envelope.id) else {
            out.append(reject("duplicateID", "message id \(message.envelope.id) was already received", topic: topic, message: message, now: now))
            return out
        }
        switch message.body {
        case .location(let location) where topic.hasPrefix(Topic.locationRawPrefix):
            // Taken as it is when nothing came before it (the usual case): no second array.
            if out.isEmpty { out = receiveFix(location, message: message, topic: topic, now: now) } else {
                out += receiveFix(location, message: message, topic: topic, now: now)
            }
        case .control(let control) where topic.hasPrefix(Topic.controlPrefix):
            guard let slot = slot(for: control.device, topic: topic, prefix: Topic.controlPrefix, message: message, now: now, out: &out)
            else { return out }
            states[slot]?.policy.apply(control)
        case .motion(let motion) where topic.hasPrefix(Topic.motionPrefix):
            guard let slot = slot(for: motion.device, topic: topic, prefix: Topic.motionPrefix, message: message, now: now, out: &out)
            else { return out }
            states[slot]?.filter.activity = motion.activity
        default:
            counters.add("ignored")
        }
        return out
    }

    public mutating func tick(now: Double) -> [Outbound] {
        republishCache(now: now)
    }

    public mutating func finish(now: Double) -> [Outbound] {
        let out = republishCache(now: now)
        for (_, slot) in slots.sorted(by: { $0.key < $1.key }) {
            guard var state = states[slot].take() else { continue }
            saveIfDue(&state, force: true)
            states[slot] = state
        }
        return out
    }

    // MARK: - Fixes

    private mutating func receiveFix(_ location: Location, message: Message, topic: String, now: Double) -> [Outbound] {
        // Room for what one fix publishes (fused, significant, approx, visit): one allocation.
        var out: [Outbound] = []
        out.reserveCapacity(4)
        var t = message.envelope.t
        guard location.lat.isFinite, location.lon.isFinite, abs(location.lat) <= 90, abs(location.lon) <= 180,
              location.hacc.isFinite, location.hacc > 0, t.isFinite, (location.age ?? 0).isFinite, (location.age ?? 0) >= 0 else {
            return [reject("invalidValue", "location with a value out of range", topic: topic, message: message, now: now)]
        }
        guard let slot = slot(for: location.device, topic: topic, prefix: Topic.locationRawPrefix, message: message, now: now, out: &out),
              var state = states[slot].take() else { return out }
        defer { states[slot] = state }
        let device = location.device

        let key = RecentFixes.Key(source: location.source, t: t, lat: location.lat, lon: location.lon)
        if state.recentFixes.isRepeat(key) {
            fixCounts.add(.duplicateFixes)
            return out
        }
        let retimed = retimeIfFaulty(&t, device: device, state: &state, topic: topic, message: message, now: now, out: &out)
        // A cached or dead-reckoned fix may say how old it is: it was measured at t − age.
        let measuredAt = t - (location.age ?? 0)
        let invented = location.source == "dr" || location.source == "cache"
        let coordinate = Coordinate(lat: location.lat, lon: location.lon)
        // `SourceTrust.effectiveHacc`, with the source's scale kept per device.
        let trustScale = state.trustScale(for: location.source, in: configuration.trust)
        var hacc = max(configuration.trust.minimumHaccMeters, location.hacc * trustScale)
        if let age = location.age { hacc += age * configuration.filter.stalenessSpeedMetersPerSecond }

        switch state.timeline.place(measuredAt: measuredAt, invented: invented, lateLimitSeconds: configuration.lateLimitSeconds) {
        case .inventedBehindReal:
            counters.add("inventedBehindReal")
            return out
        case .tooLate(let lag):
            counters.add("rejected.tooLate")
            out.append(reject("tooLate", "fix for \(device) is \(Int(lag)) s older than its newest (late fixes are kept up to "
                              + "\(Int(configuration.lateLimitSeconds)) s)", topic: topic, message: message, now: now))
            return out
        case .late(let lag):
            // History for everyone; within the filter's window it also refines the estimate.
            let (history, accepted) = receiveLate(location, coordinate: coordinate, hacc: hacc, t: measuredAt, retimed: retimed,
                                                  device: device, state: &state, topic: topic, message: message, now: now)
            out += history
            guard accepted, lag <= configuration.filter.outOfOrderWindowSeconds else { return out }
        case .current:
            if !retimed, !invented { state.timeline.observeClock(fixTime: measuredAt, arrival: now) }
            if let rejection = state.screen.check(coordinate, hacc: location.hacc, t: measuredAt, stream: invented ? .invented : .current) {
                return out + report(rejection, device: device, state: &state, topic: topic, message: message, now: now)
            }
        }
        if invented {
            if state.timeline.beforeInvented == nil { state.timeline.beforeInvented = state.filter }
        } else if measuredAt > state.timeline.newestReal, let saved = state.timeline.beforeInvented {
            // A real fix replaces every invented one since the newest real fix, however they were stamped.
            let activity = state.filter.activity
            state.filter = saved
            state.filter.activity = activity
            state.timeline.beforeInvented = nil
            counters.add("inventedReplaced")
        }

        let outcome = state.filter.update(coordinate: coordinate, haccMeters: hacc, t: measuredAt)
        fixCounts.add(outcome)
        switch outcome {
        case .rejectedOutlier, .tooOld, .fusedLate:
            return out  // the estimate at the filter's time is not newer: nothing to publish
        case .initialized, .fused, .reanchored:
            break
        }
        if !invented { state.timeline.fusedReal(at: measuredAt, retimed: retimed) }
        let velocityScale = configuration.filter.velocityAccuracyScale * trustScale
        if location.age == nil, velocityScale > 0, let velocity = VelocityMeasurement(location) {
            let fused = state.filter.updateVelocity(eastMetersPerSecond: velocity.eastMetersPerSecond,
                                                    northMetersPerSecond: velocity.northMetersPerSecond,
                                                    sigmaMetersPerSecond: velocity.sigmaMetersPerSecond * velocityScale)
            fixCounts.add(fused ? .velocityFused : .velocityRejected)
        }
        if let alt = location.alt { state.lastAltitude = (alt, location.vacc) }
        guard let estimate = state.filter.estimate else { return out }
        publish(estimate, slot: slot, device: device, mode: location.mode, state: &state, out: &out)
        return out
    }

    private mutating func publish(_ estimate: FilterEstimate, slot: Int, device: String, mode: String?, state: inout DeviceState,
                                  out: inout [Outbound]) {
        let t = estimate.t
        if let visit = state.visits.observe(estimate.coordinate, haccMeters: estimate.haccMeters, t: t) {
            let body = Visit(device: device, lat: visit.center.lat, lon: visit.center.lon, hacc: visit.haccMeters,
                             arrival: visit.arrival, departure: visit.departure)
            out.append(Outbound(topic: topics[slot].visit, body: .visit(body), t: t))
        }
        guard state.policy.shouldPublish(estimate.coordinate, haccMeters: estimate.haccMeters, t: t) else {
            fixCounts.add(.held)
            return
        }
        let fused = Location(
            device: device, source: "fused", lat: estimate.coordinate.lat, lon: estimate.coordinate.lon,
            hacc: estimate.haccMeters, alt: state.lastAltitude?.value, vacc: state.lastAltitude?.accuracy,
            speed: estimate.speedMetersPerSecond, speedAcc: max(estimate.speedAccuracy, 0.01),
            course: estimate.courseDegrees, mode: mode, tier: AccuracyTier(haccMeters: estimate.haccMeters).rawValue,
            timeSource: state.timeline.retimed ? "arrival" : nil)
        out.append(Outbound(topic: topics[slot].fused, body: .location(fused), t: t))
        if state.significant.observe(estimate.coordinate, t: t) {
            out.append(Outbound(topic: topics[slot].significant, body: .location(fused), t: t))
        }
        if let approx = approximate(estimate.coordinate, slot: slot, device: device, t: t, state: &state) { out.append(approx) }
        if store != nil {
            state.unsavedFix = LastKnownStore.Entry(device: device, lat: fused.lat, lon: fused.lon, hacc: fused.hacc, t: t, alt: fused.alt)
            saveIfDue(&state, force: false)
        }
    }

    /// The reduced-accuracy message, only when its point or period changed. The device's
    /// secret offsets are kept in its state: a fix in the same cell and period hashes nothing.
    private func approximate(_ coordinate: Coordinate, slot: Int, device: String, t: Double, state: inout DeviceState) -> Outbound? {
        guard let approx = configuration.approx else { return nil }
        var offsets = state.approxOffsets ?? approx.offsets(device: device)
        let point = approx.reduce(coordinate, t: t, offsets: &offsets)
        state.approxOffsets = offsets
        let period = approx.periodIndex(t: t)
        if let last = state.lastApprox, last.period == period, last.coordinate == point { return nil }
        state.lastApprox = (point, period)
        let hacc = approx.haccMeters
        let body = Location(device: device, source: "fused", lat: point.lat, lon: point.lon, hacc: hacc, mode: "approx",
                            tier: AccuracyTier(haccMeters: hacc).rawValue)
        return Outbound(topic: topics[slot].approx, body: .location(body), t: t)
    }

    // MARK: - Helpers

    /// The slot of the device a message is about, after checking the topic names the same
    /// one and the device limit; creates its state on first sight. Reports and returns nil otherwise.
    private mutating func slot(for device: String, topic: String, prefix: String, message: Message, now: Double,
                               out: inout [Outbound]) -> Int? {
        // A known device's raw fixes: one comparison with the topic its state keeps.
        if prefix == Topic.locationRawPrefix, let slot = slots[device], topics[slot].rawIsASCII, topic == topics[slot].raw {
            return slot
        }
        guard Topic.topic(topic, is: prefix, plus: device) else {
            out.append(reject("deviceMismatch", "topic \(topic) does not name device \(device)", topic: topic, message: message, now: now))
            return nil
        }
        if let slot = slots[device] { return slot }
        if let refusal = DeviceCap(maximum: configuration.maximumDevices).refusal(known: states.count) {
            counters.add(DeviceCap.counter)  // beside fusion's total of rejections, the name motion counts too
            out.append(reject(refusal.code, refusal.message, topic: topic, message: message, now: now))
            return nil
        }
        states.append(DeviceState(device: device, configuration: configuration))
        topics.append(DeviceTopics(device: device))
        slots[device] = states.count - 1
        return states.count - 1
    }

    mutating func reject(_ code: String, _ text: String, topic: String, message: Message, now: Double) -> Outbound {
        counters.add("rejected")
        let report = ErrorReport(code: code, message: text, topic: topic, ref: message.envelope.id)
        return Outbound(topic: Topic.error(Self.service), body: .error(report), t: now)
    }

    func describe(_ rejection: FixScreen.Rejection, device: String) -> String {
        switch rejection {
        case .flood: return "device \(device) sends fixes faster than allowed; dropping"
        case .impossibleJump(let speed): return "fix for \(device) implies \(Int(speed)) m/s"
        }
    }
}

import Foundation
public import LocusService
public import LocusProtocol
public import LocusStore

/// Turns region events, visits, authorization changes, destination progress and explicit
/// requests into notifications. Each notification is committed to the outbox before any
/// sink sees it; the sink workers (`DeliveryService`) deliver it and their records come
/// back out of `tick` and `finish` as `notify.<sink>` messages.
public struct NotifierLogic: ServiceLogic {
    public static let service = "notifier"
    public static let baseSubscriptions = [Topic.regionEventPrefix, Topic.visitPrefix, Topic.authStatusPrefix, Topic.notifyRequest]
    /// The base topics, the fused fixes of the devices that have a destination (no other
    /// device's fixes are wanted: a fleet's would cost the bus a delivery and this service a
    /// decode per fix), plus the replay marker's when the notifier catches up after restarts.
    public var subscriptions: [String] {
        Self.baseSubscriptions + routing.destinations.keys.sorted().map(Topic.locationFused) + (replayGate.map { [$0.markerTopic] } ?? [])
    }
    /// Moves whenever the set of devices with a destination changes (see `subscriptions`).
    public private(set) var subscriptionsVersion = 0

    private let configuration: NotifierConfiguration
    private let outbox: Outbox
    private let delivery: DeliveryService?
    /// What routing changes in memory, kept as one value so an event whose commit failed
    /// can be routed again later from exactly the state it first met.
    private struct Routing {
        var cooldown: Cooldown
        var merger: BurstMerger
        var destinations: [String: Destination] = [:]
        var authorizations: [String: AuthStatus] = [:]
    }
    private var routing: Routing {
        didSet {
            if routing.destinations.count != oldValue.destinations.count || routing.destinations.keys != oldValue.destinations.keys {
                subscriptionsVersion += 1
            }
        }
    }
    private var storage = StorageGuard()
    /// Events whose commit failed, oldest first, with the time they were received: routed
    /// again, in order, once the outbox can be written (input is refused meanwhile).
    private var held: [(message: Message, topic: String, now: Double)] = []
    private var counts: [String: Int] = [:]
    /// Present when `configuration.replay` is set (bus mode).
    private var replayGate: ReplayGate?
    /// Notifications stored by the current message (or batch), handed to the sinks after its commit.
    private var stored: [(seq: Int64, record: NotificationRecord)] = []
    /// When set, every write of a batch of input goes into one transaction that `flush`
    /// commits (the runtime calls it after each batch and holds the batch's messages until
    /// then): a burst of events costs one commit and one sink write. A failed commit holds
    /// every event of the batch, as a failed per-event commit holds its event. Unset, each
    /// message commits and is delivered on its own.
    public var commitsOnFlush = false
    /// The batch whose writes wait for `flush`'s commit (`commitsOnFlush`).
    private var batch: OpenBatch?
    /// What a batch must be able to undo: routing as it was before the batch's first write,
    /// its events (held again when the commit fails) and its output (published after it).
    private struct OpenBatch {
        var routing: Routing
        var events: [(message: Message, topic: String, now: Double)] = []
        var output: [Outbound] = []
    }
    /// `now` of the tick that last woke the sink workers.
    private var lastWake = -Double.infinity

    /// - Parameters:
    ///   - outbox: this thread's connection to the durable outbox.
    ///   - delivery: the sink workers; nil stores notifications without delivering (tests).
    public init(configuration: NotifierConfiguration, outbox: Outbox, delivery: DeliveryService?) throws(SQLiteError) {
        self.configuration = configuration
        self.outbox = outbox
        self.delivery = delivery
        replayGate = configuration.replay.map(ReplayGate.init(settings:))
        routing = Routing(cooldown: Cooldown(windowSeconds: configuration.cooldownSeconds),
                          merger: BurstMerger(windowSeconds: configuration.mergeWindowSeconds))
        for (device, json) in try outbox.loadDestinations() {
            if let destination = Destination.decode(json) { routing.destinations[device] = destination }
        }
        for name in delivery?.sinkNames ?? [] { try outbox.register(sink: name) }
        delivery?.watchLog(of: outbox)
    }

    // MARK: ServiceLogic

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        if var gate = replayGate {
            defer { replayGate = gate }
            if topic == gate.markerTopic {
                count("replayMarkers")
                if case .other(BusReplayed.type, let fields) = message.body, let marker = try? BusReplayed(fields: fields) {
                    count("replayedEvents", by: marker.count)
                }
                return handle(gate.markerArrived(), now: now)
            }
            if gate.hold(message, topic: topic) {
                count("heldDuringReplay")
                return []
            }
        }
        return handle(message, topic: topic, now: now)
    }

    private mutating func handle(_ messages: [(message: Message, topic: String)], now: Double) -> [Outbound] {
        messages.flatMap { handle($0.message, topic: $0.topic, now: now) }
    }

    /// One event's writes (seen id, replay point, notification) are one transaction, so one
    /// commit; the stored notifications go to the sinks once it is committed. When the
    /// commit fails the event is held with everything after it (see `retryHeld`).
    private mutating func handle(_ message: Message, topic: String, now: Double) -> [Outbound] {
        if storage.isFailing {
            held.append((message, topic, now))
            return []
        }
        if commitsOnFlush { return handleInBatch(message, topic: topic, now: now) }
        var output: [Outbound] = []
        if let fault = attempt(message, topic: topic, now: now, output: &output) {
            held.append((message, topic, now))
            if let report = storage.failed(fault, now: nil, holding: "holding events") {
                output.append(Outbound(topic: Topic.error(Self.service), body: .error(report), t: message.envelope.t))
            }
        }
        return output
    }

    /// Routes one message in one transaction; on failure nothing of it stays (writes rolled
    /// back, routing state as before, its output dropped) and the fault is returned.
    private mutating func attempt(_ message: Message, topic: String, now: Double, output: inout [Outbound]) -> StorageFault? {
        var routed: [Outbound] = []
        if case .location(let location) = message.body, routing.destinations[location.device] == nil {
            // A fix for a device without a destination writes nothing: no transaction.
            try? route(message, topic: topic, now: now, output: &routed)
            output += routed
            return nil
        }
        let saved = routing
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in try route(message, topic: topic, now: now, output: &routed) }
        } catch {
            routing = saved
            stored.removeAll()
            return StorageFault(error, path: outbox.path)
        }
        output += routed
        dispatchStored(output: &output)
        return nil
    }

    /// Routes one message as a savepoint of the open batch (opened by its first write); its
    /// output waits for the batch's commit in `flush`. When a write fails the whole batch is
    /// undone and held, this message with it.
    private mutating func handleInBatch(_ message: Message, topic: String, now: Double) -> [Outbound] {
        if case .location(let location) = message.body, routing.destinations[location.device] == nil {
            // Writes nothing (a fix on a topic the notifier does not handle is only rejected):
            // no transaction; what it says waits behind the open batch's output.
            var routed: [Outbound] = []
            try? route(message, topic: topic, now: now, output: &routed)
            guard batch != nil else { return routed }
            batch!.output += routed
            return []
        }
        if let fault = openBatch() { return holdBatch(fault, adding: (message, topic, now), t: message.envelope.t) }
        batch!.events.append((message, topic, now))
        var routed: [Outbound] = []
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in try route(message, topic: topic, now: now, output: &routed) }
        } catch {
            return holdBatch(StorageFault(error, path: outbox.path), t: message.envelope.t)
        }
        batch!.output += routed
        return []
    }

    /// Opens the batch's transaction unless it is open; the fault when it cannot be opened.
    private mutating func openBatch() -> StorageFault? {
        guard batch == nil else { return nil }
        do { try outbox.beginBatch() } catch { return StorageFault(error, path: outbox.path) }
        batch = OpenBatch(routing: routing)
        return nil
    }

    /// Undoes the open batch after `fault` — its writes rolled back, routing as before its
    /// first write, its output dropped — and holds its events (and `adding`) in order, to be
    /// routed again by `retryHeld` exactly as events whose own commit failed.
    private mutating func holdBatch(_ fault: StorageFault, adding event: (message: Message, topic: String, now: Double)? = nil,
                                    t: Double) -> [Outbound] {
        outbox.rollbackBatch()
        if let open = batch {
            routing = open.routing
            held.insert(contentsOf: open.events, at: 0)
        }
        batch = nil
        stored.removeAll()
        if let event { held.append(event) }
        guard let report = storage.failed(fault, now: nil, holding: "holding events") else { return [] }
        return [Outbound(topic: Topic.error(Self.service), body: .error(report), t: t)]
    }

    /// Commits the open batch, then hands its notifications to the sinks in one dispatch
    /// and returns the batch's output followed by the inline sinks' records.
    public mutating func flush(now: Double) -> [Outbound] {
        guard let open = batch else { return [] }
        do { try outbox.commitBatch() } catch {
            return holdBatch(StorageFault(error, path: outbox.path), t: now)
        }
        batch = nil
        var output = open.output
        dispatchStored(output: &output)
        return output
    }

    /// False while the outbox cannot be written: the runtime stops feeding events.
    public var acceptsInput: Bool { !storage.isFailing }

    /// Routes the held events again, oldest first, once the back-off allows; stops at the
    /// first that still fails. When none is left the episode ends and input resumes.
    public mutating func retryHeld(now: Double) -> [Outbound] {
        guard storage.isFailing, storage.isRetryDue(now: now) else { return [] }
        var output: [Outbound] = []
        do { try outbox.prepareRetry(after: storage.fault!) } catch {
            _ = storage.failed(StorageFault.from(error, path: outbox.path), now: now, holding: "")
            return []
        }
        var done = 0
        while done < held.count {
            let entry = held[done]
            if let fault = attempt(entry.message, topic: entry.topic, now: entry.now, output: &output) {
                _ = storage.failed(fault, now: now, holding: "")
                break
            }
            done += 1
        }
        held.removeFirst(done)
        if held.isEmpty { storage.succeeded() }
        return output
    }

    /// Hands the notifications committed since the last call to the sinks; inline sinks'
    /// records come back at once.
    private mutating func dispatchStored(output: inout [Outbound]) {
        guard !stored.isEmpty else { return }
        defer { stored.removeAll() }
        guard let delivery else { return }
        output += delivery.dispatch(stored, outbox: outbox)
    }

    private mutating func route(_ message: Message, topic: String, now: Double, output: inout [Outbound]) throws(SQLiteError) {
        let id = message.envelope.id
        let t = message.envelope.t
        switch message.body {
        case .regionEvent(let event) where topic.hasPrefix(Topic.regionEventPrefix):
            guard try firstSighting(id, t: t, topic: topic, now: now, output: &output) else { return }
            try regionEvent(event, id: id, t: t, output: &output)
        case .visit(let visit) where topic.hasPrefix(Topic.visitPrefix):
            guard try firstSighting(id, t: t, topic: topic, now: now, output: &output) else { return }
            let kind: NotificationKind = visit.departure == nil ? .visitArrival : .visitDeparture
            let time = visit.departure ?? visit.arrival
            let values = ["device": visit.device, "time": Self.timeText(time)]
            try store(make(kind, id: "n-\(id)", ref: id, t: t, values: values, device: visit.device,
                       lat: visit.lat, lon: visit.lon, accuracy: visit.hacc), cooldownKey: nil, output: &output)
        case .authStatus(let status) where topic.hasPrefix(Topic.authStatusPrefix):
            guard try firstSighting(id, t: t, topic: topic, now: now, output: &output) else { return }
            let previous = routing.authorizations.updateValue(status, forKey: status.client)
            guard let previous, previous.status != status.status || previous.accuracy != status.accuracy else { return }
            let values = ["client": status.client, "status": status.status.rawValue, "accuracy": status.accuracy.rawValue,
                          "time": Self.timeText(t)]
            try store(make(.authorization, id: "n-\(id)", ref: id, t: t, values: values, device: status.client),
                  cooldownKey: nil, output: &output)
        case .location(let location) where topic.hasPrefix(Topic.locationFusedPrefix):
            try destinationProgress(location, id: id, t: t, output: &output)
        case .other(let type, let fields) where topic == Topic.notifyRequest:
            guard try firstSighting(id, t: t, topic: topic, now: now, output: &output) else { return }
            let parsed: NotifyRequest
            do { parsed = try NotifyRequest(type: type, fields: fields) } catch {
                output.append(reject("invalidRequest", error.message, topic: topic, ref: id, t: t))
                return
            }
            try request(parsed, id: id, t: t, output: &output)
        default:
            output.append(reject("unexpectedType", "'\(message.body.type)' is not handled on \(topic)", topic: topic, ref: id, t: t))
        }
    }

    /// With `commitsOnFlush` due bursts join the open batch (committed and delivered by
    /// the `flush` after the tick). The sink workers get a nudge at most once a second (of
    /// `now`): `--stdio` ticks after every line, and a worker woken that often would take
    /// every delivery off the inline path.
    public mutating func tick(now: Double) -> [Outbound] {
        var output = replayTick(now: now)
        flushBursts(now: now, output: &output)
        if !commitsOnFlush { dispatchStored(output: &output) }
        if !(now - lastWake < 1 && now >= lastWake) {
            lastWake = now
            delivery?.wake()
        }
        return output + (delivery?.takeReports() ?? [])
    }

    public mutating func finish(now: Double) -> [Outbound] {
        var output: [Outbound] = []
        if storage.isFailing { output += retryHeld(now: .infinity) }
        flushBursts(now: nil, output: &output)
        // The batch is committed before the sinks are drained: they see only what is committed.
        output += flush(now: now)
        dispatchStored(output: &output)
        if let delivery {
            if !delivery.drain(timeoutSeconds: configuration.drainTimeoutSeconds) {
                output.append(reject("drainTimeout", "sinks still had notifications after \(configuration.drainTimeoutSeconds) s; they stay in the outbox for the next start",
                                     topic: nil, ref: nil, t: now))
            }
            delivery.stop()
            output += delivery.takeReports()
        }
        return output
    }

    /// Stores the merged entries that are due (nil: all of them), in one transaction; when it
    /// fails they stay in the merger for a later tick.
    private mutating func flushBursts(now: Double?, output: inout [Outbound]) {
        guard !storage.isFailing, routing.merger.isEnabled else { return }
        if commitsOnFlush {
            flushBurstsInBatch(now: now, output: &output)
            return
        }
        let saved = routing
        var stored: [Outbound] = []
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in
                for burst in routing.merger.due(now: now) { try flush(burst, output: &stored) }
            }
        } catch {
            routing = saved
            self.stored.removeAll()
            if let report = storage.failed(StorageFault(error, path: outbox.path), now: nil, holding: "holding events") {
                output.append(Outbound(topic: Topic.error(Self.service), body: .error(report), t: now ?? 0))
            }
            return
        }
        output += stored
    }

    /// The same as a savepoint of the open batch: a failure undoes and holds the batch, and
    /// the bursts stay in the merger (restored with routing) for a later tick.
    private mutating func flushBurstsInBatch(now: Double?, output: inout [Outbound]) {
        guard routing.merger.hasOpenBursts else { return }
        if let fault = openBatch() {
            output += holdBatch(fault, t: now ?? 0)
            return
        }
        var stored: [Outbound] = []
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in
                for burst in routing.merger.due(now: now) { try flush(burst, output: &stored) }
            }
        } catch {
            output += holdBatch(StorageFault(error, path: outbox.path), t: now ?? 0)
            return
        }
        batch!.output += stored
    }

    /// Sends the replay request on the first tick, repeats it while its marker is overdue,
    /// and releases the held events when the bus never answers.
    private mutating func replayTick(now: Double) -> [Outbound] {
        guard var gate = replayGate else { return [] }
        defer { replayGate = gate }
        switch gate.phase {
        case .idle:
            let point: Double?
            do { point = try outbox.replayPoint(orStart: now) } catch {
                let released = gate.release()
                return [reject("outboxFailed", "cannot read the replay point: \(error)", topic: nil, ref: nil, t: now)]
                    + handle(released, now: now)
            }
            let (request, released) = gate.start(replayPoint: point, now: now)
            if request != nil { count("replayRequests") }
            return (request.map { [$0] } ?? []) + handle(released, now: now)
        case .waiting:
            switch gate.tick(now: now) {
            case .nothing:
                return []
            case .resend(let request):
                count("replayRequests")
                return [request]
            case .gaveUp:
                let released = gate.release()
                return [reject("replayTimeout", "the bus did not answer bus.replay after \(gate.settings.attempts) attempt(s); events published while the notifier was down may be missing",
                               topic: BusReplayRequest.topic, ref: nil, t: now)] + handle(released, now: now)
            }
        case .open:
            return []
        }
    }

    /// The notifier's counts, the sinks' deliveries, and each sink's outbox backlog as
    /// `backlog.<sink>` (a level, not a count: what the sink has still to deliver).
    public var healthCounters: [String: Int] {
        var values = counts.merging(delivery?.counters ?? [:]) { $0 + $1 }.merging(storage.counters) { $1 }
        if storage.isFailing { values["heldEvents"] = held.count }
        for sink in delivery?.sinkNames ?? [] {
            if let backlog = try? outbox.backlog(for: sink) { values["backlog." + sink] = backlog }
        }
        return values
    }

    public var healthState: HealthState {
        storage.isFailing || delivery?.outboxFault != nil || (delivery?.counters["sinkErrors"] ?? 0) > 0 ? .degraded : .ok
    }

    /// The storage fault of the runtime thread's outbox, else one a sink worker meets on it.
    public var healthDetail: [String: String]? {
        if storage.isFailing { return storage.healthDetail }
        return delivery?.outboxFault.map { ["storage": $0] }
    }

    // MARK: events

    private mutating func regionEvent(_ event: RegionEvent, id: String, t: Double, output: inout [Outbound]) throws(SQLiteError) {
        let kind: NotificationKind
        switch event.event {
        case .enter: kind = .enter
        case .exit: kind = .exit
        case .dwell: kind = .dwell
        case .state:
            count("stateEventsIgnored")
            return
        case .deviated:
            // A corridor's `exit` (notified) comes with it; the notice adds no second notification.
            count("deviatedEventsIgnored")
            return
        }
        let summary = RegionEventSummary(owner: event.owner, regionId: event.regionId, device: event.device, kind: kind, t: t,
                                         lat: event.location.lat, lon: event.location.lon, hacc: event.location.hacc)
        if kind == .enter && routing.merger.isEnabled {
            routing.merger.add(.init(eventID: id, event: summary), device: event.device, t: t)
            for burst in routing.merger.due(now: t) { try flush(burst, output: &output) }
            return
        }
        try store(single(summary, eventID: id), cooldownKey: "\(event.owner)/\(event.regionId)/\(event.device)/\(kind.rawValue)", output: &output)
    }

    private func single(_ event: RegionEventSummary, eventID: String) -> NotificationRecord {
        let values = ["region": event.regionId, "owner": event.owner, "device": event.device, "time": Self.timeText(event.t)]
        var record = make(event.kind, id: "n-\(eventID)", ref: eventID, t: event.t, values: values, device: event.device,
                          lat: event.lat, lon: event.lon, accuracy: event.hacc)
        record.owner = event.owner
        record.region = event.regionId
        return record
    }

    private mutating func flush(_ burst: [BurstMerger.Entry], output: inout [Outbound]) throws(SQLiteError) {
        guard let first = burst.first else { return }
        if burst.count == 1 {
            let event = first.event
            try store(single(event, eventID: first.eventID),
                  cooldownKey: "\(event.owner)/\(event.regionId)/\(event.device)/enter", output: &output)
            return
        }
        let regions = burst.map(\.event.regionId)
        let values = ["count": String(burst.count), "regions": regions.joined(separator: ", "), "device": first.event.device,
                      "time": Self.timeText(first.event.t)]
        var record = make(.mergedEnter, id: "n-merged-\(first.eventID)", ref: first.eventID, t: burst.last!.event.t, values: values,
                          device: first.event.device, lat: burst.last!.event.lat, lon: burst.last!.event.lon, accuracy: burst.last!.event.hacc)
        record.regions = regions
        count("merged", by: burst.count - 1)
        try store(record, cooldownKey: nil, output: &output)
    }

    private mutating func destinationProgress(_ location: Location, id: String, t: Double, output: inout [Outbound]) throws(SQLiteError) {
        guard var destination = routing.destinations[location.device] else { return }
        let progress = destination.update(lat: location.lat, lon: location.lon)
        switch progress {
        case .none:
            return
        case let .progress(distance, bucket):
            let values = ["distance": String(Int(distance.rounded())), "device": location.device, "time": Self.timeText(t)]
            var record = make(.destinationProgress, id: "n-\(destination.id)-step-\(bucket)", ref: id, t: t, values: values,
                              device: location.device, lat: location.lat, lon: location.lon, accuracy: location.hacc)
            record.distanceMeters = distance.rounded()
            try store(record, cooldownKey: nil, output: &output)
            routing.destinations[location.device] = destination
            try persist(destination, device: location.device, t: t)
        case .arrived(let distance):
            let values = ["distance": String(Int(distance.rounded())), "device": location.device, "time": Self.timeText(t)]
            var record = make(.destinationArrival, id: "n-\(destination.id)-arrival", ref: id, t: t, values: values,
                              device: location.device, lat: location.lat, lon: location.lon, accuracy: location.hacc)
            record.distanceMeters = distance.rounded()
            try store(record, cooldownKey: nil, output: &output)
            routing.destinations[location.device] = nil
            try persist(nil, device: location.device, t: t)
        }
    }

    private mutating func request(_ request: NotifyRequest, id: String, t: Double, output: inout [Outbound]) throws(SQLiteError) {
        switch request {
        case let .notify(title, body, device):
            let values = ["title": title, "body": body, "device": device ?? "", "time": Self.timeText(t)]
            try store(make(.request, id: "n-\(id)", ref: id, t: t, values: values, device: device), cooldownKey: nil, output: &output)
        case let .setDestination(device, lat, lon, radius, step):
            let destination = Destination(id: id, device: device, lat: lat, lon: lon,
                                          radiusMeters: radius ?? configuration.arrivalRadiusMeters,
                                          stepMeters: step ?? configuration.progressStepMeters, lastBucket: nil)
            routing.destinations[device] = destination
            try persist(destination, device: device, t: t)
        case .clearDestination(let device):
            routing.destinations[device] = nil
            try persist(nil, device: device, t: t)
        }
    }

    // MARK: storing

    /// Records the event id; a repeat (also one from before a restart) yields nothing. An
    /// event on a replayed topic also moves the replay point to `now`.
    private mutating func firstSighting(_ id: String, t: Double, topic: String, now: Double,
                                        output: inout [Outbound]) throws(SQLiteError) -> Bool {
        if try outbox.markSeen(eventID: id, t: t) {
            if let gate = replayGate, gate.isEvent(topic) { try outbox.noteEventReceived(at: now) }
            return true
        }
        count("duplicates")
        return false
    }

    private mutating func store(_ record: NotificationRecord, cooldownKey: String?, output: inout [Outbound]) throws(SQLiteError) {
        if let cooldownKey, !routing.cooldown.allow(cooldownKey, t: record.t) {
            count("suppressed")
            for sink in delivery?.sinkNames ?? [] {
                let body = LocusProtocol.Notification(ref: record.ref, title: record.title, body: record.body, sink: sink, status: .suppressed)
                output.append(Outbound(topic: Topic.notify(sink), body: .notification(body), t: record.t))
            }
            return
        }
        // Only a stored notification wakes the sinks: waking them for every message (a
        // thousand fused fixes a second) made each sink thread query the outbox each time,
        // contending for the database with this thread.
        if let seq = try outbox.store(record) {
            count("notifications")
            stored.append((seq, record))
        } else {
            count("duplicates")
        }
    }

    private mutating func persist(_ destination: Destination?, device: String, t: Double) throws(SQLiteError) {
        try outbox.saveDestination(device: device, json: destination?.json())
    }

    private func make(_ kind: NotificationKind, id: String, ref: String, t: Double, values: [String: String], device: String?,
                      lat: Double? = nil, lon: Double? = nil, accuracy: Double? = nil) -> NotificationRecord {
        let text = configuration.catalog.render(kind, values)
        return NotificationRecord(id: id, ref: ref, kind: kind, title: text.title, body: text.body, locale: configuration.catalog.locale,
                                  t: t, device: device, lat: lat, lon: lon, accuracyMeters: accuracy)
    }

    private mutating func reject(_ code: String, _ message: String, topic: String?, ref: String?, t: Double) -> Outbound {
        count("rejected")
        return Outbound(topic: Topic.error(Self.service), body: .error(ErrorReport(code: code, message: message, topic: topic, ref: ref)), t: t)
    }

    private mutating func count(_ name: String, by amount: Int = 1) {
        counts[name, default: 0] += amount
    }

    /// ISO 8601 UTC, the form every locale's templates receive for {time}.
    /// Formatted by hand: making an ISO8601DateFormatter per notification was a measurable
    /// share of the event path.
    static func timeText(_ t: Double) -> String {
        var seconds = time_t(t.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

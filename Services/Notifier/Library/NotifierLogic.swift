import Foundation
public import LocusService
public import LocusProtocol
public import LocusStore

/// Turns region events, visits, authorization changes, destination progress and explicit
/// requests into notifications. Each notification is committed to the outbox before any
/// sink sees it; the sink workers (`DeliveryService`) deliver it and their records come
/// back out of `tick` and `finish` as `notify.<sink>` messages.
///
/// What an event yields is `EventRouter`'s decision, `OutboxWrites` writes it, `EventHold`
/// keeps what waits for a commit or for the outbox to work again; this type runs them in
/// transactions and speaks `ServiceLogic`.
public struct NotifierLogic: ServiceLogic {
    public static let service = "notifier"
    public static let baseSubscriptions = [Topic.regionEventPrefix, Topic.visitPrefix, Topic.authStatusPrefix, Topic.notifyRequest]
    /// The base topics, the fused fixes of the devices that have a destination (no other
    /// device's fixes are wanted: a fleet's would cost the bus a delivery and this service a
    /// decode per fix), plus the replay marker's when the notifier catches up after restarts.
    public var subscriptions: [String] {
        Self.baseSubscriptions + router.destinations.keys.sorted().map(Topic.locationFused) + (replayGate.map { [$0.markerTopic] } ?? [])
    }
    /// Moves whenever the set of devices with a destination changes (see `subscriptions`).
    public private(set) var subscriptionsVersion = 0

    /// When set, every write of a batch of input goes into one transaction that `flush`
    /// commits (the runtime calls it after each batch and holds the batch's messages until
    /// then): a burst of events costs one commit and one sink write. A failed commit holds
    /// every event of the batch, as a failed per-event commit holds its event. Unset, each
    /// message commits and is delivered on its own.
    public var commitsOnFlush = false

    let configuration: NotifierConfiguration
    let delivery: DeliveryService?
    var router: EventRouter {
        didSet {
            if router.destinations.count != oldValue.destinations.count || router.destinations.keys != oldValue.destinations.keys {
                subscriptionsVersion += 1
            }
        }
    }
    var writes: OutboxWrites
    var hold = EventHold()
    /// Present when `configuration.replay` is set (bus mode).
    var replayGate: ReplayGate?
    /// `now` of the tick that last woke the sink workers.
    private var lastWake = -Double.infinity
    var outbox: Outbox { writes.outbox }

    /// - Parameters:
    ///   - outbox: this thread's connection to the durable outbox.
    ///   - delivery: the sink workers; nil stores notifications without delivering (tests).
    public init(configuration: NotifierConfiguration, outbox: Outbox, delivery: DeliveryService?) throws(SQLiteError) {
        self.configuration = configuration
        self.delivery = delivery
        writes = OutboxWrites(outbox: outbox, sinkNames: delivery?.sinkNames ?? [])
        replayGate = configuration.replay.map(ReplayGate.init(settings:))
        router = EventRouter(configuration: configuration)
        for (device, json) in try outbox.loadDestinations() {
            if let destination = Destination.decode(json) { router.destinations[device] = destination }
        }
        for name in delivery?.sinkNames ?? [] { try outbox.register(sink: name) }
        delivery?.watchLog(of: outbox)
    }

    // MARK: input

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        if let held = replayHold(message, topic: topic, now: now) { return held }
        return handle(ReceivedEvent(message: message, topic: topic, now: now))
    }

    /// Routes one message: during a storage episode it is held behind the others; with
    /// `commitsOnFlush` it joins the open batch; otherwise it is one transaction of its own.
    mutating func handle(_ event: ReceivedEvent) -> [Outbound] {
        if hold.isFailing {
            hold.hold(event)
            return []
        }
        if commitsOnFlush { return handleInBatch(event) }
        var output: [Outbound] = []
        if let fault = attempt(event, output: &output), let report = hold.failed(event, fault) {
            output.append(Outbound(topic: Topic.error(Self.service), body: .error(report), t: event.message.envelope.t))
        }
        return output
    }

    /// Routes one message in one transaction and hands its notifications to the sinks; on
    /// failure nothing of it stays (writes rolled back, routing as before, output dropped)
    /// and the fault is returned.
    private mutating func attempt(_ event: ReceivedEvent, output: inout [Outbound]) -> StorageFault? {
        var routed: [Outbound] = []
        if writesNothing(event) {
            try? route(event, output: &routed)
            output += routed
            return nil
        }
        let saved = router
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in try route(event, output: &routed) }
        } catch {
            router = saved
            writes.stored.removeAll()
            return StorageFault(error, path: outbox.path)
        }
        output += routed
        dispatchStored(output: &output)
        return nil
    }

    /// Routes one message as a savepoint of the open batch (opened by its first write); its
    /// output waits for the batch's commit in `flush`. When a write fails the whole batch is
    /// undone and held, this message with it.
    private mutating func handleInBatch(_ event: ReceivedEvent) -> [Outbound] {
        var routed: [Outbound] = []
        if writesNothing(event) {
            // Its output (a rejection) waits behind the open batch's, and goes again with the
            // batch's events when the batch fails.
            try? route(event, output: &routed)
            guard hold.batch != nil else { return routed }
            hold.add(event, output: routed)
            return []
        }
        if let fault = openBatch() { return batchFailed(fault, adding: event, t: event.message.envelope.t) }
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in try route(event, output: &routed) }
        } catch {
            return batchFailed(StorageFault(error, path: outbox.path), adding: event, t: event.message.envelope.t)
        }
        hold.add(event, output: routed)
        return []
    }

    /// A fix of a device without a destination writes nothing (a fix on a topic the notifier
    /// does not handle is only rejected): no transaction.
    private func writesNothing(_ event: ReceivedEvent) -> Bool {
        guard case .location(let location) = event.message.body else { return false }
        return router.destinations[location.device] == nil
    }

    /// One message's writes and output: its first sighting when it is a once-only event,
    /// then what the router decides.
    private mutating func route(_ event: ReceivedEvent, output: inout [Outbound]) throws(SQLiteError) {
        let (message, topic) = (event.message, event.topic)
        if EventRouter.isOnceOnly(message, topic: topic) {
            let replayPoint = replayGate?.isEvent(topic) == true ? event.now : nil
            guard try writes.firstSighting(message.envelope.id, t: message.envelope.t, replayPoint: replayPoint) else { return }
        }
        let steps = router.route(message, topic: topic)
        try writes.apply(steps, topic: topic, ref: message.envelope.id, t: message.envelope.t, output: &output)
    }

    // MARK: batches and held events

    /// Opens the batch's transaction unless it is open; the fault when it cannot be opened.
    private mutating func openBatch() -> StorageFault? {
        guard hold.batch == nil else { return nil }
        do { try outbox.beginBatch() } catch { return StorageFault(error, path: outbox.path) }
        hold.open(router: router)
        return nil
    }

    /// Undoes the open batch after `fault` — writes rolled back, routing as before its first
    /// write, output dropped — and holds its events (then `event`) in order.
    private mutating func batchFailed(_ fault: StorageFault, adding event: ReceivedEvent? = nil, t: Double) -> [Outbound] {
        outbox.rollbackBatch()
        writes.stored.removeAll()
        let (saved, report) = hold.batchFailed(fault, adding: event)
        if let saved { router = saved }
        return report.map { [Outbound(topic: Topic.error(Self.service), body: .error($0), t: t)] } ?? []
    }

    /// Commits the open batch, then hands its notifications to the sinks in one dispatch;
    /// returns the batch's output followed by the inline sinks' records.
    public mutating func flush(now: Double) -> [Outbound] {
        guard hold.batch != nil else { return [] }
        do { try outbox.commitBatch() } catch {
            return batchFailed(StorageFault(error, path: outbox.path), t: now)
        }
        var output = hold.committed()
        dispatchStored(output: &output)
        return output
    }

    /// False while the outbox cannot be written: the runtime stops feeding events.
    public var acceptsInput: Bool { !hold.isFailing }

    /// Routes the held events again, oldest first and one transaction each, once the back-off
    /// allows; stops at the first that still fails. When none is left the episode ends and
    /// input resumes.
    public mutating func retryHeld(now: Double) -> [Outbound] {
        guard hold.isRetryDue(now: now), let fault = hold.storage.fault else { return [] }
        var output: [Outbound] = []
        do { try outbox.prepareRetry(after: fault) } catch {
            hold.retryFailed(StorageFault.from(error, path: outbox.path), now: now)
            return []
        }
        var done = 0
        for event in hold.held {
            if let fault = attempt(event, output: &output) {
                hold.retryFailed(fault, now: now)
                break
            }
            done += 1
        }
        hold.retried(done)
        return output
    }

    /// Hands the notifications committed since the last call to the sinks; inline sinks'
    /// records come back at once.
    mutating func dispatchStored(output: inout [Outbound]) {
        guard !writes.stored.isEmpty else { return }
        defer { writes.stored.removeAll() }
        guard let delivery else { return }
        output += delivery.dispatch(writes.stored, outbox: outbox)
    }

    // MARK: ticks

    /// With `commitsOnFlush` due bursts join the open batch (committed and delivered by the
    /// `flush` after the tick). The sink workers get a nudge at most once a second (of
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
        if hold.isFailing { output += retryHeld(now: .infinity) }
        flushBursts(now: nil, output: &output)
        // The batch is committed before the sinks are drained: they see only what is committed.
        output += flush(now: now)
        dispatchStored(output: &output)
        if let delivery {
            if !delivery.drain(timeoutSeconds: configuration.drainTimeoutSeconds) {
                output.append(writes.reject("drainTimeout", "sinks still had notifications after \(configuration.drainTimeoutSeconds) s; they stay in the outbox for the next start",
                                            topic: nil, ref: nil, t: now))
            }
            delivery.stop()
            output += delivery.takeReports()
        }
        return output
    }

    /// Stores the merged entries that are due (nil: all of them) in one transaction, or as a
    /// savepoint of the open batch; when it fails they stay in the merger (restored with the
    /// routing state) for a later tick.
    private mutating func flushBursts(now: Double?, output: inout [Outbound]) {
        guard !hold.isFailing, router.merger.isEnabled, router.merger.hasOpenBursts else { return }
        if commitsOnFlush, let fault = openBatch() {
            output += batchFailed(fault, t: now ?? 0)
            return
        }
        let saved = router
        var routed: [Outbound] = []
        let outbox = self.outbox
        do {
            try outbox.transaction { () throws(SQLiteError) in
                try writes.apply(router.dueBursts(now: now), topic: nil, ref: nil, t: now ?? 0, output: &routed)
            }
        } catch {
            if commitsOnFlush {
                output += batchFailed(StorageFault(error, path: outbox.path), t: now ?? 0)
                return
            }
            router = saved
            writes.stored.removeAll()
            if let report = hold.writeFailed(StorageFault(error, path: outbox.path)) {
                output.append(Outbound(topic: Topic.error(Self.service), body: .error(report), t: now ?? 0))
            }
            return
        }
        if commitsOnFlush { hold.add(nil, output: routed) } else { output += routed }
    }
}

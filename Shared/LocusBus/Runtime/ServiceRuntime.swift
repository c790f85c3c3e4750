import CZeroMQ
import Foundation
import LocusProtocol
public import LocusService

/// Runs a `ServiceLogic` on one thread that owns every socket: on the bus (subscribe,
/// publish, health every few seconds, ticks) or as a `--stdio` filter (text form in and
/// out, time taken from the messages). Other threads reach it only through injectors.
///
/// Inputs are handled in batches (what one poll finds waiting, up to `maximumBatch` bus
/// messages, or the lines of one read): the messages the logic returns are held until the
/// batch ends and `ServiceLogic.flush(now:)` has returned, then published in order.
///
/// While the logic does not accept input (`ServiceLogic.acceptsInput`, a storage fault) the
/// runtime stops reading: what it had taken already waits in `parked`, the rest stays in the
/// socket or on stdin; `retryHeld` runs every `retryIntervalSeconds` until it accepts again.
public final class ServiceRuntime<Logic: ServiceLogic> {
    public internal(set) var logic: Logic
    public let settings: RuntimeSettings
    public let log: ServiceLog
    private var throttled: ThrottledLog
    var injectors: [Injector] = []
    var finishedSources = 0
    let stopRequest = Wakeup()
    var counters = Counters()
    /// Per-message counts as plain integers (no string hashing on the hot path).
    var received = 0
    var otherShard = 0
    private var recent = RecentIDs()
    var sequences = SequenceTracker()
    var ids = MessageIDGenerator()
    var seq = 0
    let started = Date().timeIntervalSince1970
    private var stdioClock = 0.0
    /// Bus messages handled before a flush. A service that commits per batch (the geofence)
    /// writes each touched database page once per batch, so under a flood a larger batch
    /// costs less per message; a light load never fills one, so latency is unchanged there.
    static var maximumBatch: Int { 16_384 }
    /// How often a logic that holds input back is asked to retry (it keeps its own back-off).
    static var retryIntervalSeconds: Double { 0.05 }
    /// Bus messages taken from the reader thread after the logic stopped accepting input,
    /// handed over first once it accepts again (at most one drain's worth).
    private var parked: [BusSubscriber.Received] = []
    /// The same for `--stdio` lines read before the logic stopped accepting input.
    private var parkedLines: [[UInt8]] = []
    private var holding = false
    private var nextRetry = 0.0

    public init(settings: RuntimeSettings, logic: Logic) {
        self.settings = settings
        self.logic = logic
        log = ServiceLog(name: settings.program, minimum: settings.logLevel)
        throttled = ThrottledLog(log: log)
    }

    /// A channel for one producer thread; create them all before `run()`.
    public func makeInjector(capacity: Int = 10_000) -> Injector {
        let injector = Injector(capacity: capacity)
        injectors.append(injector)
        return injector
    }

    /// Asks the loop to finish and return (safe from any thread, e.g. a signal handler).
    public func stop() {
        stopRequest.signal()
    }

    /// Runs until stopped, the input ends (`--stdio`), or every source finished; returns the exit status.
    public func run() -> Int32 {
        let request = stopRequest
        let signals = ServiceProgram.handleTerminationSignals { _ in request.signal() }
        defer { signals.forEach { $0.cancel() } }
        do {
            return try settings.stdio ? runStdio() : settings.usesNATS ? runOnTransport() : runBus()
        } catch {
            log.error("stopped: \(error)")
            return 1
        }
    }

    // MARK: bus mode

    private func runBus() throws -> Int32 {
        let context = ZMQContext()
        let publisher = try BusPublisher(context: context, endpoint: settings.endpoints.pub, source: settings.source,
                                           curve: settings.curve)
        var subscriber: BusSubscriber?
        if settings.readsInput && !logic.subscriptions.isEmpty {
            subscriber = try BusSubscriber(context: context, endpoint: settings.endpoints.sub, prefixes: logic.subscriptions,
                                        curve: settings.curve)
            subscriber?.shard = settings.shard
            subscriber?.keepsRawBody = false
        }
        defer {
            subscriber?.socket.close()
            publisher.socket.close()
        }
        if settings.shard.count > 1 { log.info("shard \(settings.shard): handling only this shard's devices") }
        log.info("started: publishing to \(settings.endpoints.pub)"
                 + (subscriber.map { _ in ", subscribed to \(logic.subscriptions.joined(separator: " ")) at \(settings.endpoints.sub)" } ?? ""))
        ServiceProgram.notifyReady()

        // A service that asks for it receives and decodes on a thread of its own; the
        // defer stops that thread before the socket closes.
        let reader = subscriber.flatMap { logic.receivesOnReaderThread ? BusReader(subscriber: $0) : nil }
        reader?.start()
        defer { reader?.stop() }

        var poller = Poller()
        let subscriberIndex = reader == nil ? subscriber.map { poller.add($0.socket) } : nil
        let readerIndex = reader.map { poller.add(fileDescriptor: $0.readyFD) }
        let publisherIndex = poller.add(publisher.socket)
        let stopIndex = poller.add(fileDescriptor: stopRequest.readFD)
        let injectorBase = injectors.count > 0 ? poller.add(fileDescriptor: injectors[0].eventFD) : -1
        for injector in injectors.dropFirst() { poller.add(fileDescriptor: injector.eventFD) }

        let emit: (Outbound) -> Void = { [self] outbound in
            do { try publisher.publish(outbound.body, topic: outbound.topic, t: outbound.t) } catch {
                log.warn("publish \(outbound.topic) failed: \(error)")
            }
        }
        var nextTick = now() + settings.tickIntervalSeconds
        var nextHealth = now()
        var stopping = false
        var subscribed = (version: logic.subscriptionsVersion, prefixes: Set(logic.subscriptions))
        let inputIndex = subscriberIndex ?? readerIndex
        while !stopping {
            let current = now()
            var reading = holdBack(now: current, emit: emit)
            if reading && !parked.isEmpty {
                batch(now: current, emit: emit) { held in
                    var position = 0
                    while position < parked.count && logic.acceptsInput {
                        held(handle(parked[position], now: current))
                        position += 1
                    }
                    parked.removeFirst(position)
                }
                reading = parked.isEmpty && logic.acceptsInput
            }
            if let inputIndex { poller.watch(inputIndex, reading) }
            if current >= nextHealth {
                let counts = reader?.counts ?? subscriber?.counts ?? BusSubscriber.Counts()
                emit(healthMessage(now: current, publisher: publisher, subscriber: counts))
                nextHealth = current + settings.healthIntervalSeconds
            }
            if current >= nextTick {
                batch(now: current, emit: emit) { held in held(logic.tick(now: current)) }
                nextTick = current + settings.tickIntervalSeconds
            }
            // Messages held back behind a full queue to the bus go on as soon as it has read.
            let backedUp = publisher.connected && publisher.pendingCount > 0
            let wake = reading ? min(nextTick, nextHealth) : min(nextTick, nextHealth, current + Self.retryIntervalSeconds)
            let timeout = backedUp ? 1 : max(1, Int((wake - current) * 1000))
            let readable = try poller.poll(timeoutMilliseconds: timeout)
            if readable[publisherIndex] || backedUp { try publisher.pump() }
            if let index = subscriberIndex, let subscriber, readable[index] {
                try batch(now: now(), emit: emit) { held throws(ZMQError) in
                    var handled = 0
                    while handled < Self.maximumBatch, logic.acceptsInput, let received = try subscriber.receive(dontWait: true) {
                        handled += 1
                        held(handle(received, now: now()))
                    }
                }
            }
            if let index = readerIndex, let reader, readable[index] {
                // What the reader queues while this batch is handled joins it (one flush,
                // one commit, for many of the reader's batches under a flood).
                try batch(now: now(), emit: emit) { held throws(ZMQError) in
                    try reader.drain(upTo: Self.maximumBatch) { received in
                        if parked.isEmpty && logic.acceptsInput { held(handle(received, now: now())) } else { parked.append(received) }
                    }
                }
            }
            if injectorBase >= 0 {
                for (offset, injector) in injectors.enumerated() where readable[injectorBase + offset] {
                    let time = now()
                    batch(now: time, emit: emit) { held in
                        if take(injector.drain(), now: time, emit: { held([$0]) }) { stopping = true }
                    }
                }
            }
            if readable[stopIndex] {
                log.info("stopping on signal")
                stopping = true
            }
            if let subscriber, reader == nil { try follow(subscriptions: &subscribed, on: subscriber) }
        }
        let end = now()
        batch(now: end, emit: emit) { held in held(logic.finish(now: end)) }
        try flush(publisher)
        log.info("stopped: \(summary(publisher: publisher))")
        return 0
    }

    /// Subscribes to what the logic's subscriptions gained and drops what they lost, when
    /// their version moved (with a reader thread the subscriber is that thread's: not followed).
    private func follow(subscriptions subscribed: inout (version: Int, prefixes: Set<String>), on subscriber: BusSubscriber) throws {
        guard logic.subscriptionsVersion != subscribed.version else { return }
        let wanted = Set(logic.subscriptions)
        for prefix in wanted.subtracting(subscribed.prefixes) { try subscriber.socket.subscribe(prefix) }
        for prefix in subscribed.prefixes.subtracting(wanted) { try subscriber.socket.unsubscribe(prefix) }
        subscribed = (logic.subscriptionsVersion, wanted)
    }

    /// Gives queued messages a bounded chance to reach the bus before the sockets close.
    private func flush(_ publisher: BusPublisher) throws {
        if try !publisher.flush(timeoutSeconds: 2) {
            log.warn("bus not reachable at \(settings.endpoints.pub): \(publisher.pendingCount) message(s) not delivered")
        }
    }

    private func summary(publisher: BusPublisher) -> String {
        "sent=\(publisher.sent) received=\(received) rejected=\(counters["rejected"]) dropped=\(publisher.dropped)"
    }

    private func healthMessage(now: Double, publisher: BusPublisher, subscriber: BusSubscriber.Counts) -> Outbound {
        var values = counters.values
        values["sent"] = publisher.sent
        values["dropped"] = publisher.dropped
        values["resent"] = publisher.resent
        values["busLost"] = publisher.disconnections
        values["gaps"] = sequences.missing + subscriber.gaps
        values["duplicates"] = counters["duplicates"] + subscriber.duplicates
        values["received"] = received
        let skipped = otherShard + subscriber.otherShard
        if skipped > 0 { values["otherShard"] = skipped }
        for (key, value) in logic.healthCounters { values[key] = value }
        var detail = logic.healthDetail ?? [:]
        detail["pid"] = String(getpid())
        let health = Health(service: settings.service, state: logic.healthState, uptime: now - started,
                            counters: values, detail: detail)
        return Outbound(topic: Topic.health(settings.service), body: .health(health), t: now)
    }

    // MARK: stdio mode

    private func runStdio() throws -> Int32 {
        log.info("started in --stdio mode")
        var poller = Poller()
        let stdinIndex = settings.readsInput ? poller.add(fileDescriptor: 0) : -1
        let stopIndex = poller.add(fileDescriptor: stopRequest.readFD)
        let injectorBase = injectors.count > 0 ? poller.add(fileDescriptor: injectors[0].eventFD) : -1
        for injector in injectors.dropFirst() { poller.add(fileDescriptor: injector.eventFD) }
        var output = LineWriter(fd: 1)
        var sent = 0
        let emit: (Outbound) -> Void = { [self] outbound in
            seq += 1
            let message = Message(body: outbound.body, id: ids.next(), t: outbound.t, src: settings.source, seq: seq)
            output.write { line in
                line.append(contentsOf: outbound.topic.utf8)
                line.append(UInt8(ascii: " "))
                MessageCodec.encode(message, appendingTo: &line)
            }
            sent += 1
        }
        var input = LineReader(fd: 0)
        var stopping = !settings.readsInput && injectors.isEmpty
        var inputEnded = false
        while !stopping {
            var reading = holdBack(now: now(), emit: emit)
            if reading && !parkedLines.isEmpty {
                batch(now: stdioClock, emit: emit) { held in feed(&parkedLines, held: held) }
                reading = parkedLines.isEmpty && logic.acceptsInput
            }
            output.flush()
            // The end of input ends the run only once every line read has been handled.
            if inputEnded && reading {
                stopping = true
                continue
            }
            if stdinIndex >= 0 { poller.watch(stdinIndex, reading && !inputEnded) }
            let readable = try poller.poll(timeoutMilliseconds: reading ? -1 : Int(Self.retryIntervalSeconds * 1000))
            if stdinIndex >= 0 && readable[stdinIndex] {
                var ended = false
                batch(now: stdioClock, emit: emit) { held in
                    ended = input.read { line in
                        // Behind lines already held back, or while the logic refuses input, a
                        // line waits (copied out of the read buffer) in order.
                        if parkedLines.isEmpty && logic.acceptsInput {
                            handleLine(line, held: held)
                        } else {
                            parkedLines.append(Array(line))
                        }
                    }
                }
                if ended { inputEnded = true }
            }
            if injectorBase >= 0 {
                for (offset, injector) in injectors.enumerated() where readable[injectorBase + offset] {
                    batch(now: stdioClock, emit: emit) { held in
                        if take(injector.drain(), now: stdioClock, emit: { held([$0]) }) { stopping = true }
                    }
                }
            }
            if readable[stopIndex] { stopping = true }
        }
        batch(now: stdioClock, emit: emit) { held in held(logic.finish(now: stdioClock)) }
        output.flush()
        counters.add("sent", sent)
        log.info("stopped: sent=\(counters["sent"]) received=\(received) rejected=\(counters["rejected"])")
        return 0
    }

    /// Handles held-back lines from the front while the logic accepts input; the rest stay.
    private func feed(_ lines: inout [[UInt8]], held: ([Outbound]) -> Void) {
        var position = 0
        while position < lines.count && logic.acceptsInput {
            lines[position].withUnsafeBytes { handleLine($0, held: held) }
            position += 1
        }
        lines.removeFirst(position)
    }

    /// One text-form line, read where it lies in the input buffer.
    private func handleLine(_ line: UnsafeRawBufferPointer, held: ([Outbound]) -> Void) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) { return }
        let topic: String
        let message: Message
        do {
            (topic, message) = try TextForm.decode(line)
        } catch {
            held(reject(error, topic: nil, now: stdioClock))
            return
        }
        stdioClock = max(stdioClock, message.envelope.t)
        held(deliver(message, topic: topic, now: stdioClock))
        let ticked = logic.tick(now: stdioClock)
        if !ticked.isEmpty { held(ticked) }
    }

    // MARK: shared

    func now() -> Double { Date().timeIntervalSince1970 }

    /// Back-pressure, once per loop turn: while the logic holds input back it is asked to
    /// retry (every `retryIntervalSeconds`). Returns whether it accepts input now; logs when
    /// holding starts and ends.
    func holdBack(now wall: Double, emit: (Outbound) -> Void) -> Bool {
        if !logic.acceptsInput {
            if !holding {
                holding = true
                log.warn("holding input back: \(logic.healthDetail?["storage"] ?? "the service cannot take input now")")
            }
            guard wall >= nextRetry else { return false }
            nextRetry = wall + Self.retryIntervalSeconds
            batch(now: settings.stdio ? stdioClock : wall, emit: emit) { held in held(logic.retryHeld(now: wall)) }
            guard logic.acceptsInput else { return false }
        }
        if holding {
            holding = false
            log.info("taking input again")
        }
        return true
    }

    /// Runs one batch of inputs: `body` hands what the logic returns to `held`; once it is
    /// done the logic's `flush` runs and only then is everything published, in order.
    /// `now` is the time the batch started (the flush reports at that time).
    func batch<Failure: Error>(now: Double, emit: (Outbound) -> Void,
                                       _ body: (_ held: (([Outbound]) -> Void)) throws(Failure) -> Void) throws(Failure) {
        var outbound: [Outbound] = []
        defer {
            outbound.append(contentsOf: logic.flush(now: settings.stdio ? stdioClock : now))
            outbound.forEach(emit)
        }
        try body { outbound.append(contentsOf: $0) }
    }

    private func handle(_ received: BusSubscriber.Received, now: Double) -> [Outbound] {
        switch received {
        case .duplicate:
            return []  // counted by the subscriber
        case let .rejected(topic, error):
            return reject(error, topic: topic, now: now)
        case let .message(topic, message, _):
            return deliver(message, topic: topic, now: now, screened: true)
        }
    }

    /// `screened`: the bus subscriber has already skipped other shards' devices, dropped repeats
    /// and followed `seq`, so it is not done twice.
    func deliver(_ message: Message, topic: String, now: Double, screened: Bool = false) -> [Outbound] {
        if !screened {
            guard settings.shard.accepts(topic: topic) else {
                otherShard += 1
                return []
            }
            guard recent.insert(message.envelope.id) else {
                counters.add("duplicates")
                return []
            }
            sequences.observe(src: message.envelope.src, topic: topic, tseq: message.envelope.tseq)
        }
        received += 1
        return logic.receive(message, topic: topic, now: now)
    }

    func reject(_ error: ProtocolError, topic: String?, now: Double) -> [Outbound] {
        counters.add("rejected")
        throttled.warn("rejected input\(topic.map { " on \($0)" } ?? ""): \(error.message)", now: now)
        let report = ErrorReport(code: error.code.rawValue, message: error.message, topic: topic)
        return [Outbound(topic: Topic.error(settings.service), body: .error(report), t: now)]
    }

    /// Applies injected items; returns true when every source has finished and the service should stop.
    func take(_ items: [Injector.Item], now: Double, emit: (Outbound) -> Void) -> Bool {
        for item in items {
            switch item {
            case .publish(let outbound):
                if settings.stdio { stdioClock = max(stdioClock, outbound.t) }
                emit(outbound)
            case let .deliver(topic, message):
                let time = settings.stdio ? max(stdioClock, message.envelope.t) : now
                if settings.stdio { stdioClock = time }
                deliver(message, topic: topic, now: time).forEach(emit)
            case let .problem(code, message):
                counters.add("rejected")
                throttled.warn(message, now: now)
                emit(Outbound(topic: Topic.error(settings.service), body: .error(ErrorReport(code: code, message: message)),
                              t: settings.stdio ? stdioClock : now))
            case .finished:
                finishedSources += 1
            }
        }
        return settings.exitWhenSourcesFinish && finishedSources >= injectors.count
    }
}

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
    var throttled: ThrottledLog
    var injectors: [Injector] = []
    var finishedSources = 0
    let stopRequest = Wakeup()
    var counters = Counters()
    /// Per-message counts as plain integers (no string hashing on the hot path).
    var received = 0
    var otherShard = 0
    var recent = RecentIDs()
    var sequences = SequenceTracker()
    var ids = MessageIDGenerator()
    var seq = 0
    let started = Date().timeIntervalSince1970
    var stdioClock = 0.0
    /// Bus messages handled before a flush. A service that commits per batch (the geofence)
    /// writes each touched database page once per batch, so under a flood a larger batch
    /// costs less per message; a light load never fills one, so latency is unchanged there.
    static var maximumBatch: Int { 16_384 }
    /// How often a logic that holds input back is asked to retry (it keeps its own back-off).
    static var retryIntervalSeconds: Double { 0.05 }
    /// Bus messages taken from the reader thread after the logic stopped accepting input,
    /// handed over first once it accepts again (at most one drain's worth).
    var parked: [BusSubscriber.Received] = []
    /// The same for `--stdio` lines read before the logic stopped accepting input.
    var parkedLines: [[UInt8]] = []
    var holding = false
    var nextRetry = 0.0
    /// What a batch holds until its flush, kept empty between batches so its storage is reused.
    var heldOutbound: [Outbound] = []
    /// Beyond this many messages a batch's array is given back rather than kept for the next one.
    static var maximumHeldCapacity: Int { 65_536 }

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

    // MARK: the input path every mode shares

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
                                       _ body: (_ held: ((consuming [Outbound]) -> Void)) throws(Failure) -> Void) throws(Failure) {
        // The array of the previous batch, emptied: under a flood a batch holds thousands of
        // messages, and a fresh array grew (and faulted in new pages) every time. A batch run
        // from inside another one (none today) would simply start with an array of its own.
        var outbound: [Outbound] = []
        swap(&outbound, &heldOutbound)
        defer {
            outbound.append(contentsOf: logic.flush(now: settings.stdio ? stdioClock : now))
            // Each message is moved out of the array (reversed first, then taken from the end),
            // not copied out beside it: no retain and release of its strings per message.
            outbound.reverse()
            while let message = outbound.popLast() { emit(message) }
            outbound.removeAll(keepingCapacity: outbound.capacity <= Self.maximumHeldCapacity)
            swap(&outbound, &heldOutbound)
        }
        try body { returned in
            // The logic's array is handed over: its one message (the usual case) is moved, not copied.
            var messages = returned
            if messages.count == 1 { outbound.append(messages.removeLast()) } else { outbound.append(contentsOf: messages) }
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

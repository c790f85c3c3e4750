import CZeroMQ
import Foundation
public import LocusBus
public import LocusService
import LocusProtocol
import LocusStore

/// The bus: publishers connect to its XSUB side, subscribers to its XPUB side, and one
/// thread forwards between them, keeps the last-value cache, replays it to each new
/// subscription and counts every message it could not deliver.
///
/// Its XSUB subscribes to everything, so publishers' PUB sockets never drop for lack of
/// a subscriber and the cache sees every state topic even while nobody listens.
public final class Broker {
    public let configuration: BrokerConfiguration
    public let log: ServiceLog
    /// Hot-path counts are plain integers; `counters` folds them in for health reports.
    var received = 0
    var forwarded = 0
    var dropped = 0
    private var droppedAtLastHealth = 0
    var otherCounters = Counters()
    public var counters: Counters {
        var all = otherCounters
        all.merge(["received": received, "forwarded": forwarded, "dropped": dropped])
        return all
    }
    var cache: LastValueCache
    var replayRing: ReplayRing
    /// The ring's file when `configuration.stateDirectory` is set.
    let replayLog: ReplayRingLog?
    /// Storage episodes of the ring's file (and the authorization state): reported once each.
    var storage = StorageGuard()
    /// Whether a saved ring was found at start: this run is a restart.
    public let restarted: Bool
    private var ids = MessageIDGenerator()
    private var seq = 0
    private let started = Date().timeIntervalSince1970
    private var lastRejectReport = 0.0
    private var rejectedSinceReport = 0
    /// The authorization authority's state (with an allow-list, also per-client enforcement).
    let enforcement: Enforcement
    /// Whether subscriptions and publications are checked per client (an allow-list is loaded).
    let filtersClients: Bool
    var lastRefusalReport = 0.0
    /// Service name → the client that last published its `health.*` (with an allow-list).
    var healthSenders: [String: String] = [:]
    var lastTemporaryCheck = 0.0

    public init(configuration: BrokerConfiguration, log: ServiceLog) {
        self.configuration = configuration
        self.log = log
        var prefixes = configuration.cachePrefixes
        prefixes.append(Topic.authPendingPrefix)
        cache = LastValueCache(prefixes: prefixes, capacity: configuration.cacheCapacity)
        replayRing = ReplayRing(prefixes: configuration.replayPrefixes, capacity: configuration.replayCapacity,
                                maxAgeSeconds: configuration.replayMaxAgeSeconds)
        enforcement = Enforcement(settings: configuration.authorization, log: log)
        filtersClients = configuration.authorization.filtersClients
        (replayLog, restarted) = Self.openReplayLog(configuration: configuration, ring: &replayRing, log: log)
    }

    func count(_ name: String) { otherCounters.add(name) }

    /// Binds both endpoints and forwards until the context is shut down (SIGTERM), then returns.
    /// `ready` runs once both endpoints are bound.
    public func run(context: ZMQContext, ready: () -> Void = {}) throws {
        for endpoint in configuration.pubEndpoints + configuration.subEndpoints {
            try BusEndpoints.prepareIPCDirectory(for: endpoint)
        }
        var zap: ZAPHandler?
        if let allowList = configuration.authorization.allowList, configuration.authorization.serverKeys != nil {
            zap = ZAPHandler(allowList: allowList, log: log)
            try zap?.start(context: context)
        }
        let frontend = try ZMQSocket(context: context, type: .xsub)
        let backend = try ZMQSocket(context: context, type: .xpub)
        defer {
            enforcement.connections?.close()
            frontend.close()
            backend.close()
        }
        try frontend.setOption(ZMQ_RCVHWM, configuration.highWaterMark)
        try backend.setOption(ZMQ_SNDHWM, configuration.highWaterMark)
        // Every subscription reaches us (so each new subscriber gets its replay), and a full
        // subscriber queue makes send fail instead of dropping silently.
        try backend.setOption(ZMQ_XPUB_VERBOSER, 1)
        try backend.setOption(ZMQ_XPUB_NODROP, 1)
        if filtersClients {
            // Every subscription comes to us with its User-Id and is granted per client.
            try backend.setOption(ZMQ_XPUB_MANUAL, 1)
            enforcement.connections = try SubscriberConnections(context: context, watching: backend)
        }
        let networkLast: (String, String) -> Bool = { !$0.hasPrefix("tcp://") && $1.hasPrefix("tcp://") }
        for endpoint in configuration.pubEndpoints.sorted(by: networkLast) { try bindSecured(frontend, endpoint) }
        for endpoint in configuration.subEndpoints.sorted(by: networkLast) { try bindSecured(backend, endpoint) }
        // Subscribing upstream to everything lets publishers send. After a restart that waits
        // a moment, so reconnecting subscribers are back before publishers re-send.
        var subscribeUpstreamAt = Date().timeIntervalSince1970 + (restarted ? configuration.restartGraceSeconds : 0)
        log.info("listening: publishers \(configuration.pubEndpoints.joined(separator: " ")), subscribers \(configuration.subEndpoints.joined(separator: " "))")
        enforcement.logStart(log)
        ready()

        var poller = Poller()
        poller.add(frontend)
        poller.add(backend)
        if let monitor = enforcement.connections?.socket { poller.add(monitor) }
        var forwarder = Forwarder()
        defer { forwarder.close() }
        var nextHealth = 0.0
        while true {
            let now = Date().timeIntervalSince1970
            if now >= subscribeUpstreamAt {
                do { try frontend.send([1]) } catch {
                    if error.isTerminated { break }  // stopped (SIGTERM) before the first subscription
                    throw error
                }
                subscribeUpstreamAt = .infinity
            }
            if now >= nextHealth {
                publishHealth(on: backend, now: now)
                nextHealth = now + configuration.healthIntervalSeconds
            }
            // Grants are checked five times a second while a session can end one (allow-list)
            // or a temporary grant runs; an idle local bus sleeps until its next health report.
            let checksGrants = filtersClients || enforcement.authority.hasTemporaryGrants
            if checksGrants && now - lastTemporaryCheck >= 0.2 {
                lastTemporaryCheck = now
                expireTemporaryGrants(backend: backend, now: now)
            }
            let wait = min(checksGrants ? min(nextHealth - now, 0.2) : nextHealth - now, subscribeUpstreamAt - now)
            let timeout = max(1, Int(wait * 1000))
            if try !step(poller: &poller, timeout: timeout, frontend: frontend, backend: backend, forwarder: &forwarder) {
                break
            }
        }
        log.info("shutting down: \(summary)")
        zap?.waitUntilStopped()
    }

    /// One poll and what it found; false once the context is shut down.
    private func step(poller: inout Poller, timeout: Int, frontend: ZMQSocket, backend: ZMQSocket,
                      forwarder: inout Forwarder) throws(ZMQError) -> Bool {
        do {
            let readable = try poller.poll(timeoutMilliseconds: timeout)
            if readable.count > 2 && readable[2] { try enforcement.connections?.drain() }
            if readable[1] {
                if filtersClients { try serveGrantedSubscriptions(backend) } else { try serveSubscriptions(backend) }
            }
            if readable[0] {
                try forwarder.drain(from: frontend, to: backend, broker: self)
                persistReplayRing(backend: backend)
            } else if storage.isFailing {
                persistReplayRing(backend: backend)
            }
            if enforcement.resetPending { enforcement.resetConnectionsIfNeeded(log: log) }
            return true
        } catch {
            if error.isTerminated { return false }
            throw error
        }
    }

    public var summary: String {
        counters.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    // MARK: storage and rejects

    /// One report per episode on `error.bus` and in the log; a line when writes work again.
    func noteStorage(_ fault: StorageFault?, holding: String, backend: ZMQSocket, now: Double) {
        if let fault {
            if let report = storage.failed(fault, now: now, holding: holding) {
                log.warn("storage: \(report.message)")
                publish(.error(report), topic: Topic.error("bus"), on: backend, now: now)
            }
        } else if storage.succeeded() {
            log.info("storage: writing state again")
        }
    }

    func reject(_ reason: String, backend: ZMQSocket) {
        otherCounters.add("rejected")
        rejectedSinceReport += 1
        let now = Date().timeIntervalSince1970
        // One log line and one error message per second at most: a peer sending garbage
        // in a loop must not turn the bus into a log flood.
        guard now - lastRejectReport >= 1 else { return }
        log.warn("rejected \(rejectedSinceReport) message(s) from a publisher: \(reason)")
        let report = ErrorReport(code: "badFraming", message: "\(rejectedSinceReport) message(s) rejected: \(reason)")
        publish(.error(report), topic: Topic.error("bus"), on: backend, now: now)
        rejectedSinceReport = 0
        lastRejectReport = now
    }

    // MARK: subscriptions and replay

    private func serveSubscriptions(_ backend: ZMQSocket) throws(ZMQError) {
        while let frames = try backend.receiveMultipart(dontWait: true) {
            guard let frame = frames.first, let kind = frame.first, kind == 0 || kind == 1 else { continue }
            let prefix = Array(frame.dropFirst())
            if kind == 0 {
                otherCounters.add("unsubscriptions")
                continue
            }
            otherCounters.add("subscriptions")
            let replay = cache.matching(prefix: prefix)
            for entry in replay {
                if try !backend.send(entry.topic, more: true, dontWait: true) {
                    dropped += 1
                    continue
                }
                try backend.send(entry.body)
                otherCounters.add("replayed")
            }
        }
    }

    // MARK: health

    private func publishHealth(on backend: ZMQSocket, now: Double) {
        var values = counters.values
        values["cachedTopics"] = cache.count
        values["cacheRefused"] = cache.refused
        values["replayRingMessages"] = replayRing.count
        values["replayRingOverwritten"] = replayRing.overwritten
        if let replayLog {
            values["replayLogRecords"] = replayLog.records
            values["replayLogFailures"] = replayLog.failures
        }
        values.merge(storage.counters) { $1 }
        // Degraded while losses are recent (drops since the previous report, a full cache) or
        // while state cannot be written.
        let state: HealthState = dropped > droppedAtLastHealth || cache.refused > 0 || storage.isFailing ? .degraded : .ok
        droppedAtLastHealth = dropped
        var detail = ["pid": String(getpid()), "pub": configuration.pubEndpoint, "sub": configuration.subEndpoint]
            .merging(storage.healthDetail) { $1 }
        addAuthorizationHealth(counters: &values, detail: &detail)
        let health = Health(service: "bus", state: state, uptime: now - started, counters: values, detail: detail)
        publish(.health(health), topic: Topic.health("bus"), on: backend, now: now)
    }

    func publish(_ body: Body, topic: String, on backend: ZMQSocket, now: Double) {
        seq += 1
        let message = Message(body: body, id: ids.next(), t: now, src: configuration.source, seq: seq)
        let bytes = MessageCodec.encode(message)
        let topicBytes = Array(topic.utf8)
        topicBytes.withUnsafeBytes { t in bytes.withUnsafeBytes { b in _ = cache.store(topic: t, body: b) } }
        do {
            if try !backend.send(topic: topic, body: bytes, dontWait: true) { dropped += 1 }
        } catch {
            log.warn("could not publish \(topic): \(error)")
        }
    }
}

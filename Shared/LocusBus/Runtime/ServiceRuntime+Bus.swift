import CZeroMQ
import Foundation
import LocusProtocol
import LocusService

/// Bus mode: the one thread owns the ZeroMQ publisher and subscriber (or the reader thread's
/// queue), the injectors and the stop request, and polls them all; health goes out every
/// `healthIntervalSeconds`, ticks every `tickIntervalSeconds`.
extension ServiceRuntime {
    func runBus() throws -> Int32 {
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

    /// Takes the received message over (`consuming`): its parts move to the logic, not copied.
    private func handle(_ received: consuming BusSubscriber.Received, now: Double) -> [Outbound] {
        switch consume received {
        case .duplicate:
            return []  // counted by the subscriber
        case let .rejected(topic, error):
            return reject(error, topic: topic, now: now)
        case let .message(topic, message, _):
            return deliver(message, topic: topic, now: now, screened: true)
        }
    }
}

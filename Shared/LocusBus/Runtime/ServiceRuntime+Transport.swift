import Foundation
import LocusNATS
import LocusProtocol
import LocusService

/// The transport seam: a `nats://` endpoint runs the same logic, batches, ticks, health and
/// injectors as the ZeroMQ loop, but through a `BusTransport` (docs/nats.md). After each
/// batch the transport commits: what the batch published is confirmed by the servers
/// before its inputs are acknowledged, so a durable consumer never moves past work that
/// was not done. While the logic holds input back (a storage fault) nothing is drained and
/// nothing is acknowledged: inputs already drained wait in order, the rest stay with the
/// servers, and a service stopped or killed meanwhile gets them all again.
extension ServiceRuntime {
    func runOnTransport() throws -> Int32 {
        let endpoint: NATSEndpoint
        do { endpoint = try NATSEndpoint(settings.endpoints.pub) } catch {
            ServiceProgram.usageFailure(settings.program, error.message)
        }
        guard let transport = try connect(to: endpoint) else {
            log.info("stopped before NATS was reachable")
            return 0
        }
        defer { transport.close() }
        let subscribed = settings.readsInput ? logic.subscriptions : []
        log.info("started: on \(transport.description)" + (subscribed.isEmpty ? "" : ", subscribed to \(subscribed.joined(separator: " "))")
                 + (settings.partition.map { ", partition \($0)" } ?? ""))
        ServiceProgram.notifyReady()
        logic.keepOutputUntilConfirmed(source: settings.source)
        sendUnconfirmed(transport)

        var poller = Poller()
        let inputIndex = poller.add(fileDescriptor: transport.readyFD)
        let stopIndex = poller.add(fileDescriptor: stopRequest.readFD)
        let injectorBase = injectors.count > 0 ? poller.add(fileDescriptor: injectors[0].eventFD) : -1
        for injector in injectors.dropFirst() { poller.add(fileDescriptor: injector.eventFD) }

        let emit: (Outbound) -> Void = { [self] outbound in
            let kept = stamp(outbound)
            transport.publish(kept.message, topic: kept.topic)
        }
        var nextTick = now() + settings.tickIntervalSeconds
        var nextHealth = now()
        var stopping = false
        // Drained while the logic held input back: handled first, in order, once it accepts again.
        var parked: [TransportInput] = []
        // Acknowledge only when everything drained was handled and the logic holds nothing back.
        let settled = { [self] in parked.isEmpty && logic.acceptsInput }
        let handle = { [self] (input: TransportInput, time: Double) -> [Outbound] in
            switch input {
            case let .message(topic, message): deliver(message, topic: topic, now: time)
            case let .rejected(topic, error): reject(error, topic: topic, now: time)
            }
        }
        while !stopping {
            let current = now()
            let wasSettled = settled()
            var reading = holdBack(now: current, emit: emit)
            if reading && !parked.isEmpty {
                batch(now: current, on: transport, settled: settled) { held in
                    var position = 0
                    while position < parked.count && logic.acceptsInput {
                        held(handle(parked[position], current))
                        position += 1
                    }
                    parked.removeFirst(position)
                }
                reading = settled()
            }
            // What was held and has now been written is acknowledged with everything before it.
            if reading && !wasSettled { commit(transport) }
            poller.watch(inputIndex, reading)
            if current >= nextHealth {
                emit(transportHealth(now: current, transport: transport))
                nextHealth = current + settings.healthIntervalSeconds
            }
            if current >= nextTick {
                batch(now: current, on: transport, settled: settled) { held in held(logic.tick(now: current)) }
                nextTick = current + settings.tickIntervalSeconds
            }
            let wake = reading ? min(nextTick, nextHealth) : min(nextTick, nextHealth, current + Self.retryIntervalSeconds)
            let timeout = max(1, Int((wake - current) * 1000))
            let readable = try poller.poll(timeoutMilliseconds: timeout)
            if readable[inputIndex] {
                batch(now: now(), on: transport, settled: settled) { held in
                    transport.drain(upTo: Self.maximumBatch) { input in
                        if parked.isEmpty && logic.acceptsInput { held(handle(input, now())) } else { parked.append(input) }
                    }
                }
            }
            if injectorBase >= 0 {
                for (offset, injector) in injectors.enumerated() where readable[injectorBase + offset] {
                    let time = now()
                    batch(now: time, on: transport, settled: settled) { held in
                        if take(injector.drain(), now: time, emit: { held([$0]) }) { stopping = true }
                    }
                }
            }
            if readable[stopIndex] {
                log.info("stopping on signal")
                stopping = true
            }
        }
        let end = now()
        batch(now: end, on: transport, settled: settled) { held in held(logic.finish(now: end)) }
        if !transport.flush(timeoutSeconds: 5) {
            log.warn("NATS did not confirm everything published before the stop; the servers drop repeats by id when it is sent again")
        }
        if !settled() {
            log.warn("stopping with input held back (\(parked.count) drained, not handled): not acknowledged, NATS delivers it again at the next start")
        }
        log.info("stopped: sent=\(transport.counters["sent"] ?? 0) received=\(received) rejected=\(counters["rejected"])")
        return 0
    }

    /// Connects, retrying with back-off (0.25 s doubling to 5 s) while no server answers or
    /// the servers refuse; each failure is logged and counted. Nil when stopped meanwhile.
    private func connect(to endpoint: NATSEndpoint) throws -> (any BusTransport)? {
        var backOff = 0.25
        while true {
            do {
                let credentials = try settings.natsCredentialsFile.map { path throws(NATSError) in try NATSCredentials.load(path: path) }
                let connection = try NATSConnection(endpoint: endpoint, name: settings.source, credentials: credentials)
                for line in try connection.ensureStreams(delivery: settings.fixDelivery) {
                    if line.hasPrefix("warning: ") { log.warn(String(line.dropFirst(9))) } else { log.debug(line) }
                }
                return try NATSTransport(connection: connection, service: settings.service, instance: settings.instance,
                                         subscriptions: settings.readsInput ? logic.subscriptions : [],
                                         partition: settings.partition, delivery: settings.fixDelivery, log: log)
            } catch {
                counters.add("natsConnectFailures")
                log.warn("\(error.message); retrying in \(backOff) s")
            }
            var poller = Poller()
            poller.add(fileDescriptor: stopRequest.readFD)
            if try poller.poll(timeoutMilliseconds: Int(backOff * 1000))[0] { return nil }
            backOff = min(backOff * 2, 5)
        }
    }

    /// Gives a message its id (unless the logic named it), `src` and `seq`.
    private func stamp(_ outbound: Outbound) -> KeptMessage {
        seq += 1
        let message = Message(body: outbound.body, id: outbound.id ?? ids.next(), t: outbound.t, src: settings.source, seq: seq)
        return KeptMessage(topic: outbound.topic, message: message)
    }

    /// One batch on the transport: the logic's `flush` commits the batch (with what the logic
    /// keeps of its output); then everything is published, the servers confirm it, the inputs
    /// are acknowledged, and the logic may forget what it kept. A kill anywhere in between
    /// loses nothing: before the commit the inputs come again, after it the kept messages are
    /// sent again at the next start.
    /// While input is held back (`settled` false) the output is confirmed but nothing is
    /// acknowledged; the next batch still waits for the confirmation, so order is kept.
    private func batch(now: Double, on transport: any BusTransport, settled: () -> Bool,
                       _ body: (_ held: ([Outbound]) -> Void) -> Void) {
        var outbound: [Outbound] = []
        body { outbound.append(contentsOf: $0) }
        let stamped = (outbound + logic.flush(now: now)).map(stamp)
        for kept in stamped { transport.publish(kept.message, topic: kept.topic) }
        if settled() ? commit(transport) : confirm(transport) { logic.keptMessagesConfirmed() }
    }

    /// Waits until the servers hold what was published, without acknowledging any input.
    private func confirm(_ transport: any BusTransport) -> Bool {
        var attempts = 0
        while !transport.flush(timeoutSeconds: 5) {
            attempts += 1
            counters.add("commitRetries")
            log.warn("NATS has not confirmed the last batch's messages (attempt \(attempts)); sending them again")
            if attempts >= 3, stopRequested { return false }
        }
        return true
    }

    /// Sends first what an earlier run kept and never saw confirmed (same ids: the streams
    /// and receivers drop the copies that had arrived).
    private func sendUnconfirmed(_ transport: any BusTransport) {
        let unconfirmed = logic.takeUnconfirmedMessages()
        guard !unconfirmed.isEmpty else { return }
        log.info("sending again \(unconfirmed.count) message(s) kept by an earlier run and never confirmed")
        counters.add("keptResent", unconfirmed.count)
        for kept in unconfirmed { transport.publish(kept.message, topic: kept.topic) }
        if commit(transport) { logic.keptMessagesConfirmed() }
    }

    /// Confirms the batch; while the servers do not answer, keeps trying (what was published
    /// is sent again with the same ids, and nothing is acknowledged before it is held).
    /// False only when a stop was asked for meanwhile.
    @discardableResult
    private func commit(_ transport: any BusTransport) -> Bool {
        var attempts = 0
        while !transport.commit(timeoutSeconds: 5) {
            attempts += 1
            counters.add("commitRetries")
            log.warn("NATS has not confirmed the last batch's messages (attempt \(attempts)); sending them again")
            if attempts >= 3, stopRequested { return false }
        }
        return true
    }

    private var stopRequested: Bool {
        var poller = Poller()
        poller.add(fileDescriptor: stopRequest.readFD)
        return (try? poller.poll(timeoutMilliseconds: 0)[0]) ?? false
    }

    private func transportHealth(now: Double, transport: any BusTransport) -> Outbound {
        var values = counters.values
        for (key, value) in transport.counters { values[key] = value }
        values["received"] = received
        values["gaps"] = sequences.missing
        values["duplicates"] = counters["duplicates"]
        if otherShard > 0 { values["otherShard"] = otherShard }
        for (key, value) in logic.healthCounters { values[key] = value }
        var detail = logic.healthDetail ?? [:]
        detail["pid"] = String(getpid())
        detail["bus"] = transport.description
        let health = Health(service: settings.service, state: logic.healthState, uptime: now - started,
                            counters: values, detail: detail)
        return Outbound(topic: Topic.health(settings.service), body: .health(health), t: now)
    }
}

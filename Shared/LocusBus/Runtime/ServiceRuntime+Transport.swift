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

        var poller = Poller()
        let inputIndex = poller.add(fileDescriptor: transport.readyFD)
        let stopIndex = poller.add(fileDescriptor: stopRequest.readFD)
        let injectorBase = injectors.count > 0 ? poller.add(fileDescriptor: injectors[0].eventFD) : -1
        for injector in injectors.dropFirst() { poller.add(fileDescriptor: injector.eventFD) }

        let emit: (Outbound) -> Void = { [self] outbound in
            seq += 1
            let message = Message(body: outbound.body, id: ids.next(), t: outbound.t, src: settings.source, seq: seq)
            transport.publish(message, topic: outbound.topic)
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
                batch(now: current, emit: emit) { held in
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
                batch(now: current, emit: emit) { held in held(logic.tick(now: current)) }
                if settled() { commit(transport) }
                nextTick = current + settings.tickIntervalSeconds
            }
            let wake = reading ? min(nextTick, nextHealth) : min(nextTick, nextHealth, current + Self.retryIntervalSeconds)
            let timeout = max(1, Int((wake - current) * 1000))
            let readable = try poller.poll(timeoutMilliseconds: timeout)
            if readable[inputIndex] {
                batch(now: now(), emit: emit) { held in
                    transport.drain(upTo: Self.maximumBatch) { input in
                        if parked.isEmpty && logic.acceptsInput { held(handle(input, now())) } else { parked.append(input) }
                    }
                }
                if settled() { commit(transport) }
            }
            if injectorBase >= 0 {
                for (offset, injector) in injectors.enumerated() where readable[injectorBase + offset] {
                    let time = now()
                    batch(now: time, emit: emit) { held in
                        if take(injector.drain(), now: time, emit: { held([$0]) }) { stopping = true }
                    }
                    if settled() { commit(transport) }
                }
            }
            if readable[stopIndex] {
                log.info("stopping on signal")
                stopping = true
            }
        }
        let end = now()
        batch(now: end, emit: emit) { held in held(logic.finish(now: end)) }
        if !transport.flush(timeoutSeconds: 5) {
            log.warn("NATS did not confirm everything published before the stop; the servers drop repeats by id when it is sent again")
        }
        if settled() {
            commit(transport)
        } else {
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
                for line in try connection.ensureStreams() { log.debug(line) }
                return try NATSTransport(connection: connection, service: settings.service, instance: settings.instance,
                                         subscriptions: settings.readsInput ? logic.subscriptions : [],
                                         partition: settings.partition, log: log)
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

    /// Confirms the batch; while the servers do not answer, keeps trying (what was published
    /// is sent again with the same ids, and nothing is acknowledged before it is held).
    private func commit(_ transport: any BusTransport) {
        var attempts = 0
        while !transport.commit(timeoutSeconds: 5) {
            attempts += 1
            counters.add("commitRetries")
            log.warn("NATS has not confirmed the last batch's messages (attempt \(attempts)); sending them again")
            if attempts >= 3, stopRequested { return }
        }
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

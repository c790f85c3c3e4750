import LocusService
import LocusProtocol

/// Catching up after a restart (bus mode, `configuration.replay`): live events are held by
/// the `ReplayGate` while the bus replays what was published meanwhile, then both are
/// routed in event order.
extension NotifierLogic {
    /// The replay marker, or an event the gate holds: what to publish for it (non-nil means
    /// the gate took the message); nil when the message is routed as usual.
    mutating func replayHold(_ message: Message, topic: String, now: Double) -> [Outbound]? {
        guard var gate = replayGate else { return nil }
        defer { replayGate = gate }
        if topic == gate.markerTopic {
            writes.count("replayMarkers")
            if case .other(BusReplayed.type, let fields) = message.body, let marker = try? BusReplayed(fields: fields) {
                writes.count("replayedEvents", by: marker.count)
            }
            let released = gate.markerArrived()
            replayGate = gate
            return route(released, now: now)
        }
        if gate.hold(message, topic: topic) {
            writes.count("heldDuringReplay")
            return []
        }
        return nil
    }

    /// Sends the replay request on the first tick, repeats it while its marker is overdue,
    /// and releases the held events when the bus never answers.
    mutating func replayTick(now: Double) -> [Outbound] {
        guard var gate = replayGate else { return [] }
        defer { replayGate = gate }
        switch gate.phase {
        case .idle:
            let point: Double?
            do { point = try outbox.replayPoint(orStart: now) } catch {
                let released = gate.release()
                replayGate = gate
                return [writes.reject("outboxFailed", "cannot read the replay point: \(error)", topic: nil, ref: nil, t: now)]
                    + route(released, now: now)
            }
            let (request, released) = gate.start(replayPoint: point, now: now)
            replayGate = gate
            if request != nil { writes.count("replayRequests") }
            return (request.map { [$0] } ?? []) + route(released, now: now)
        case .waiting:
            switch gate.tick(now: now) {
            case .nothing:
                return []
            case .resend(let request):
                writes.count("replayRequests")
                return [request]
            case .gaveUp:
                let released = gate.release()
                replayGate = gate
                return [writes.reject("replayTimeout", "the bus did not answer bus.replay after \(gate.settings.attempts) attempt(s); events published while the notifier was down may be missing",
                                      topic: BusReplayRequest.topic, ref: nil, t: now)] + route(released, now: now)
            }
        case .open:
            return []
        }
    }

    /// Routes the events the gate released, in its order.
    private mutating func route(_ released: [(message: Message, topic: String)], now: Double) -> [Outbound] {
        released.flatMap { handle(ReceivedEvent(message: $0.message, topic: $0.topic, now: now)) }
    }
}

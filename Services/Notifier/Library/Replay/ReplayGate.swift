import LocusService
import LocusProtocol

/// Holds live events back while the bus replays the ones missed during a restart, and
/// releases both in order once the replay's marker arrives.
///
/// The bus answers `bus.replay` by re-sending its ring, then `bus.replayed`; live events
/// forwarded before the bus handled the request arrive before the replayed ones (and are
/// in the replay too, where the subscriber's de-duplication drops the second copy). Held
/// events are therefore released sorted by their event time `t` (stable), which restores
/// the publishers' order; repeats of events already handled are dropped by the outbox.
struct ReplayGate {
    enum Phase: Equatable {
        /// The request is not sent yet (before the first tick).
        case idle
        /// Request sent `attempt` times, the last at `sentAt`; events are held.
        case waiting(attempt: Int, sentAt: Double)
        /// Live events flow through.
        case open
    }

    let settings: ReplaySettings
    private(set) var phase: Phase = .idle
    private(set) var held: [(message: Message, topic: String)] = []
    private var since: Double?

    init(settings: ReplaySettings) {
        self.settings = settings
    }

    var markerTopic: String { BusReplayed.topic(settings.requester) }

    /// Whether `topic` is one the gate holds while waiting.
    func isEvent(_ topic: String) -> Bool {
        settings.prefixes.contains { topic.hasPrefix($0) }
    }

    /// Starts the catch-up: `replayPoint` is the last event's receive time (nil: a fresh
    /// outbox, nothing to catch up). Returns the request to publish, if any; a fresh outbox
    /// opens the gate at once and hands back what arrived before the first tick.
    mutating func start(replayPoint: Double?, now: Double) -> (request: Outbound?, released: [(message: Message, topic: String)]) {
        guard phase == .idle else { return (nil, []) }
        guard let replayPoint else { return (nil, release()) }
        since = replayPoint - settings.marginSeconds
        phase = .waiting(attempt: 1, sentAt: now)
        return (request(now: now), [])
    }

    /// Keeps a live event until the replay ended (also one that arrives before the request
    /// is sent); false when it should be handled now.
    mutating func hold(_ message: Message, topic: String) -> Bool {
        guard phase != .open, isEvent(topic) else { return false }
        held.append((message, topic))
        return true
    }

    /// The marker arrived: the held events, oldest event time first, to handle now.
    mutating func markerArrived() -> [(message: Message, topic: String)] {
        guard case .waiting = phase else { return [] }
        return release()
    }

    enum TickOutcome: Equatable {
        case nothing
        case resend(Outbound)
        /// No marker after every attempt: the held events are released anyway.
        case gaveUp
    }

    /// Re-sends the request when its marker is overdue, or gives up after the last attempt.
    mutating func tick(now: Double) -> TickOutcome {
        guard case let .waiting(attempt, sentAt) = phase, now - sentAt >= settings.attemptTimeoutSeconds else { return .nothing }
        guard attempt < settings.attempts else { return .gaveUp }
        phase = .waiting(attempt: attempt + 1, sentAt: now)
        return .resend(request(now: now))
    }

    /// Opens the gate and hands back what it held, in event-time order.
    mutating func release() -> [(message: Message, topic: String)] {
        phase = .open
        let ordered = held.enumerated().sorted {
            ($0.element.message.envelope.t, $0.offset) < ($1.element.message.envelope.t, $1.offset)
        }.map(\.element)
        held = []
        return ordered
    }

    private func request(now: Double) -> Outbound {
        let request = BusReplayRequest(requester: settings.requester, prefixes: settings.prefixes, since: since)
        return Outbound(topic: BusReplayRequest.topic, body: request.body, t: now)
    }
}

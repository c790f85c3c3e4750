import CZeroMQ
import Foundation
public import LocusProtocol
public import LocusService

/// Publishes on the bus from the thread that owns it, stamping each message with an
/// id, `src`, per-publisher `seq` and per-topic `tseq`.
///
/// It is an XPUB that connects rather than a plain PUB: the bus subscribes to everything,
/// so the arrival of that subscription tells us the connection is live. Until then
/// messages wait in a bounded queue instead of vanishing (the slow-joiner problem).
///
/// The socket is `ZMQ_IMMEDIATE`, so its connection to the bus exists only while the bus
/// does: when the bus dies the bus's subscription goes with it (an unsubscribe arrives)
/// and messages queue again until a new bus subscribes. On that re-connection the newest
/// messages sent before the loss (`ResendRing`) are sent again first, then the queue, in
/// the original order; receivers drop the copies that had arrived by `id`.
///
/// Streams that the next message supersedes (positions, health: `notResentPrefixes`) are
/// not re-sent: a receiver that restarted meanwhile has forgotten which ids it saw, and a
/// re-sent position would take it back in time (the chaos run showed a restarted geofence
/// turning a 5 s-old fix into a spurious exit). Losing one of them is like a missed fix.
public final class BusPublisher {
    public let socket: ZMQSocket
    public let source: String
    public private(set) var seq = 0
    /// The last `tseq` sent on each topic (one hash and one probe per message).
    private var topicSequences = TopicCounters()
    public private(set) var connected = false
    public private(set) var sent = 0
    public private(set) var dropped = 0
    /// Messages sent again after the bus came back (copies of ones sent before it went).
    public private(set) var resent = 0
    /// Times the bus went away after having been connected.
    public private(set) var disconnections = 0
    private var ids = MessageIDGenerator()
    private var pending = PendingMessages()
    private var recent: ResendRing
    private var sendsSincePump = 0
    /// Where `publish` encodes, reused from message to message.
    private var encoded: [UInt8] = []
    /// Topics never re-sent after a bus restart: each message is superseded by the next one.
    public static let defaultNotResentPrefixes = [Topic.locationRawPrefix, Topic.locationFusedPrefix, Topic.locationApproxPrefix, Topic.healthPrefix]
    /// Topic prefixes kept out of the resend ring.
    public var notResentPrefixes = BusPublisher.defaultNotResentPrefixes
    /// Messages held while the bus is not reachable; older ones are dropped (and counted) beyond it.
    public var pendingLimit = 100_000
    /// While connected, subscription news is read at most every this many sends; the owning
    /// loop also calls `pump()` whenever its poll finds the socket readable. A loss noticed
    /// late costs nothing as long as the resend ring still holds what was sent meanwhile.
    public static let sendsPerPump = 256

    /// `curve` makes the connection a CURVE client (a tcp bus with authentication); nil keeps NULL security.
    /// `resendCapacity` / `resendMaxAgeSeconds` bound what is sent again after a bus restart (0: nothing).
    public init(context: ZMQContext, endpoint: String, source: String, highWaterMark: Int32 = 100_000,
                curve: CurveClientOptions? = nil, resendCapacity: Int = ResendRing.defaultCapacity,
                resendMaxAgeSeconds: Double = ResendRing.defaultMaxAgeSeconds) throws(ZMQError) {
        socket = try ZMQSocket(context: context, type: .xpub)
        self.source = source
        recent = ResendRing(capacity: resendCapacity, maxAgeSeconds: resendMaxAgeSeconds)
        try socket.setOption(ZMQ_SNDHWM, highWaterMark)
        // A full queue to the bus makes a send fail instead of dropping the message silently
        // (what an XPUB does by default): it then waits in `pending` like a message sent
        // while the bus is away, and is sent in order once the bus has read.
        try socket.setOption(ZMQ_XPUB_NODROP, 1)
        try socket.setOption(ZMQ_IMMEDIATE, 1)
        try curve?.apply(to: socket)
        try socket.connect(endpoint)
    }

    /// Builds the envelope for a body sent on `topic`: next id, this publisher's `src`, next
    /// `seq`, and the topic's next `tseq`.
    public func stamp(_ body: Body, topic: String, t: Double) -> Message {
        seq += 1
        let tseq = topicSequences.increment(TopicCounters.fingerprint(topic))
        return Message(body: body, id: ids.next(), t: t, src: source, seq: seq, tseq: tseq)
    }

    /// Encodes and publishes (or queues until connected). Returns the message as sent.
    /// The body is encoded into a buffer kept across calls: a message that goes straight out
    /// costs no allocation for its bytes (one held back or kept for resending takes a copy).
    @discardableResult
    public func publish(_ body: Body, topic: String, t: Double) throws(ZMQError) -> Message {
        let message = stamp(body, topic: topic, t: t)
        encoded.removeAll(keepingCapacity: true)
        MessageCodec.encode(message, appendingTo: &encoded)
        try send(topic: topic, body: encoded)
        return message
    }

    /// Sends already-encoded bytes (for forwarding or benchmarks).
    public func send(topic: String, body: [UInt8]) throws(ZMQError) {
        if !connected || sendsSincePump >= Self.sendsPerPump || !pending.isEmpty { try pump() }
        // Behind what still waits, so that the order holds.
        guard connected && pending.isEmpty else {
            hold(topic: topic, body: body)
            return
        }
        sendsSincePump += 1
        if try !transmit(topic: topic, body: body) { hold(topic: topic, body: body) }
    }

    private func hold(topic: String, body: [UInt8]) {
        if pending.append(topic: topic, body: body, limit: pendingLimit) { dropped += 1 }
    }

    /// Reads subscription messages from the bus: a subscription marks the connection live,
    /// the unsubscribe of everything marks it lost. On (re-)connection it re-sends the resend
    /// ring, then what was queued. Call it from the owning loop when the socket is readable.
    public func pump() throws(ZMQError) {
        sendsSincePump = 0
        // Both the loss and the new bus's subscription can be read in one call: a subscription
        // that finds us disconnected is a (re-)connection, whatever came before it.
        var cameBack = false
        while let frames = try socket.receiveMultipart(dontWait: true) {
            guard let frame = frames.first, let kind = frame.first else { continue }
            if kind == 1 {
                if !connected { cameBack = true }
                connected = true
            } else if kind == 0 && frame.count == 1 && connected {
                connected = false
                disconnections += 1
            }
        }
        guard connected else { return }
        if cameBack { try resendRecent() }
        // Until the bus's queue is full again; the rest waits, in order, for the next pump.
        while let item = pending.first, try transmit(topic: item.topic, body: item.body) {
            pending.removeFirst()
        }
    }

    /// Waits (bounded) until the bus has subscribed, for short-lived tools such as `locus pub`.
    public func waitUntilConnected(timeoutSeconds: Double) throws(ZMQError) -> Bool {
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        var poller = Poller()
        poller.add(socket)
        try pump()
        while !connected {
            let remaining = deadline - Date().timeIntervalSince1970
            if remaining <= 0 { return false }
            _ = try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))
            try pump()
        }
        return true
    }

    /// Waits (bounded) until nothing is held back any more: for a tool or a service that is
    /// about to close its socket. True when everything went to the bus.
    public func flush(timeoutSeconds: Double) throws(ZMQError) -> Bool {
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        var poller = Poller()
        poller.add(socket)
        try pump()
        while !pending.isEmpty {
            let remaining = deadline - Date().timeIntervalSince1970
            if remaining <= 0 { return false }
            // A bus's subscription makes the socket readable; a full queue gives no readiness
            // to wait for, so then poll briefly and try again.
            _ = try poller.poll(timeoutMilliseconds: connected ? 1 : max(1, Int(remaining * 1000)))
            try pump()
        }
        return true
    }

    public var pendingCount: Int { pending.count }

    /// Messages the resend ring holds now.
    public var resendable: Int { recent.count }

    /// Sends now; false when the bus's queue is full (nothing sent).
    private func transmit(topic: String, body: [UInt8]) throws(ZMQError) -> Bool {
        guard try socket.send(topic: topic, body: body, dontWait: true) else { return false }
        sent += 1
        if recent.capacity > 0 && !notResentPrefixes.contains(where: { topic.hasPrefix($0) }) {
            recent.record(topic: topic, body: body, now: Date().timeIntervalSince1970)
        }
        return true
    }

    /// Sends the ring again, oldest first; the ring is kept (the copies are the same messages).
    /// What a full queue refuses goes ahead of what already waits, in order.
    private func resendRecent() throws(ZMQError) {
        let entries = recent.entries
        for (index, entry) in entries.enumerated() {
            guard try socket.send(topic: entry.topic, body: entry.body, dontWait: true) else {
                dropped += pending.prepend(entries[index...].lazy.map { ($0.topic, $0.body) }, limit: pendingLimit)
                return
            }
            resent += 1
        }
    }
}

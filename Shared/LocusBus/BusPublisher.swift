import CZeroMQ
import Foundation
public import LocusProtocol

/// Publishes on the bus from the thread that owns it, stamping each message with an
/// id, `src` and per-publisher `seq`.
///
/// It is an XPUB that connects rather than a plain PUB: the bus subscribes to everything,
/// so the arrival of that subscription tells us the connection is live. Until then
/// messages wait in a bounded queue instead of vanishing (the slow-joiner problem).
public final class BusPublisher {
    public let socket: ZMQSocket
    public let source: String
    public private(set) var seq = 0
    public private(set) var connected = false
    public private(set) var sent = 0
    public private(set) var dropped = 0
    private var ids = MessageIDGenerator()
    private var pending: [(topic: String, body: [UInt8])] = []
    /// Messages held while the bus is not reachable; older ones are dropped (and counted) beyond it.
    public var pendingLimit = 100_000

    /// `curve` makes the connection a CURVE client (a tcp bus with authentication); nil keeps NULL security.
    public init(context: ZMQContext, endpoint: String, source: String, highWaterMark: Int32 = 100_000,
                curve: CurveClientOptions? = nil) throws(ZMQError) {
        socket = try ZMQSocket(context: context, type: .xpub)
        self.source = source
        try socket.setOption(ZMQ_SNDHWM, highWaterMark)
        try curve?.apply(to: socket)
        try socket.connect(endpoint)
    }

    /// Builds the envelope for a body: next id, this publisher's `src`, next `seq`.
    public func stamp(_ body: Body, t: Double) -> Message {
        seq += 1
        return Message(body: body, id: ids.next(), t: t, src: source, seq: seq)
    }

    /// Encodes and publishes (or queues until connected). Returns the message as sent.
    @discardableResult
    public func publish(_ body: Body, topic: String, t: Double) throws(ZMQError) -> Message {
        let message = stamp(body, t: t)
        try send(topic: topic, body: MessageCodec.encode(message))
        return message
    }

    /// Sends already-encoded bytes (for forwarding or benchmarks).
    public func send(topic: String, body: [UInt8]) throws(ZMQError) {
        try pump()
        guard connected else {
            if pending.count >= pendingLimit {
                pending.removeFirst()
                dropped += 1
            }
            pending.append((topic, body))
            return
        }
        if try socket.send(topic: topic, body: body, dontWait: true) { sent += 1 } else { dropped += 1 }
    }

    /// Reads subscription messages from the bus; the first one marks the connection live
    /// and flushes what was queued. Call it from the owning loop when the socket is readable.
    public func pump() throws(ZMQError) {
        while let frames = try socket.receiveMultipart(dontWait: true) {
            if frames.first?.first == 1 { connected = true }
        }
        if connected && !pending.isEmpty {
            let queued = pending
            pending.removeAll()
            for item in queued {
                if try socket.send(topic: item.topic, body: item.body, dontWait: true) { sent += 1 } else { dropped += 1 }
            }
        }
    }

    /// Waits (bounded) until the bus has subscribed, for short-lived tools such as `locus pub`.
    public func waitUntilConnected(timeoutSeconds: Double) throws(ZMQError) -> Bool {
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        var poller = Poller()
        poller.add(socket)
        while !connected {
            let remaining = deadline - Date().timeIntervalSince1970
            if remaining <= 0 { return false }
            _ = try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))
            try pump()
        }
        return true
    }

    public var pendingCount: Int { pending.count }
}

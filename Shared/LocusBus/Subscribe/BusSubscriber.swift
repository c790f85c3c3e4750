import CZeroMQ
import Foundation
public import LocusProtocol
public import LocusService

/// Receives from the bus on the thread that owns it: decodes, drops repeats by `id`
/// (last-value replays reach every matching subscriber) and counts `tseq` gaps.
///
/// Messages are decoded straight from the received frames (nothing is copied first), and
/// a sharded receiver checks the topic before decoding, so another shard's message costs
/// only a look at its topic.
public final class BusSubscriber {
    public let socket: ZMQSocket
    public private(set) var sequences = SequenceTracker()
    private var recent = RecentIDs()
    public private(set) var duplicates = 0
    /// The devices this receiver handles (`--shard`); messages about other devices are skipped undecoded.
    public var shard = Shard.whole
    /// Messages skipped because another shard handles their device.
    public private(set) var otherShard = 0
    /// Whether `.message` carries a copy of the body as received. Tools that print or forward
    /// the body keep it; a service, which only reads the decoded message, turns it off.
    public var keepsRawBody = true
    /// Other shards' messages skipped in one `receive` before it returns nil, so the caller's
    /// loop regains control (health, ticks) under a flood meant for other instances.
    static let maximumSkippedInARow = 4096

    /// `curve` makes the connection a CURVE client (a tcp bus with authentication); nil keeps NULL security.
    public init(context: ZMQContext, endpoint: String, prefixes: [String], highWaterMark: Int32 = 100_000,
                curve: CurveClientOptions? = nil) throws(ZMQError) {
        socket = try ZMQSocket(context: context, type: .sub)
        try socket.setOption(ZMQ_RCVHWM, highWaterMark)
        try curve?.apply(to: socket)
        try socket.connect(endpoint)
        for prefix in prefixes { try socket.subscribe(prefix) }
    }

    /// What screening counted, for `health.<service>`: one value, so a reader thread can hand
    /// it to the runtime under its lock.
    public struct Counts: Sendable {
        public var duplicates = 0
        public var gaps = 0
        /// Messages skipped undecoded because another shard handles their device.
        public var otherShard = 0
    }

    public var counts: Counts { Counts(duplicates: duplicates, gaps: sequences.missing, otherShard: otherShard) }

    /// One received frame set, decoded or with the reason it could not be.
    public enum Received {
        /// `raw` is the body as received, or empty when `keepsRawBody` is off.
        case message(topic: String, message: Message, raw: [UInt8])
        case duplicate
        case rejected(topic: String?, error: ProtocolError)
    }

    /// Receives one message if one is waiting (or blocks when `dontWait` is false). Nil when
    /// nothing for this shard is waiting, or after `maximumSkippedInARow` other shards' messages.
    public func receive(dontWait: Bool = true) throws(ZMQError) -> Received? {
        for _ in 0..<Self.maximumSkippedInARow {
            guard let screened = try socket.withReceivedFrames(dontWait: dontWait, screen) else { return nil }
            if let received = screened { return received }
        }
        return nil
    }

    /// Turns one frame set into what `receive` returns; nil for another shard's message.
    private func screen(_ frames: ReceivedFrames) -> Received? {
        guard frames.count == 2 else {
            return .rejected(topic: String(decoding: frames.first, as: UTF8.self),
                             error: ProtocolError(code: .invalidJSON, field: nil,
                                                  message: "expected 2 frames (topic, body), got \(frames.count)"))
        }
        guard shard.accepts(topicBytes: frames.first) else {
            // Another shard's topics have counters of their own: skipping them hides no loss.
            otherShard += 1
            return nil
        }
        let message: Message
        do { message = try MessageCodec.decode(frames.second) } catch {
            return .rejected(topic: String(decoding: frames.first, as: UTF8.self), error: error)
        }
        guard recent.insert(message.envelope.id) else {
            duplicates += 1
            return .duplicate
        }
        if message.envelope.tseq != nil {
            sequences.observe(src: message.envelope.src, topicFingerprint: TopicCounters.fingerprint(frames.first),
                              tseq: message.envelope.tseq)
        }
        let topic = String(decoding: frames.first, as: UTF8.self)
        return .message(topic: topic, message: message,
                        raw: keepsRawBody ? Array(frames.second) : [])
    }
}

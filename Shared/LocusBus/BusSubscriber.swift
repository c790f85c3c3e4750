import CZeroMQ
import Foundation
public import LocusProtocol

/// Receives from the bus on the thread that owns it: decodes, drops repeats by `id`
/// (last-value replays reach every matching subscriber) and counts `seq` gaps.
public final class BusSubscriber {
    public let socket: ZMQSocket
    public private(set) var sequences = SequenceTracker()
    private var recent = RecentIDs()
    public private(set) var duplicates = 0

    /// `curve` makes the connection a CURVE client (a tcp bus with authentication); nil keeps NULL security.
    public init(context: ZMQContext, endpoint: String, prefixes: [String], highWaterMark: Int32 = 100_000,
                curve: CurveClientOptions? = nil) throws(ZMQError) {
        socket = try ZMQSocket(context: context, type: .sub)
        try socket.setOption(ZMQ_RCVHWM, highWaterMark)
        try curve?.apply(to: socket)
        try socket.connect(endpoint)
        for prefix in prefixes { try socket.subscribe(prefix) }
    }

    /// One received frame set, decoded or with the reason it could not be.
    public enum Received {
        case message(topic: String, message: Message, raw: [UInt8])
        case duplicate
        case rejected(topic: String?, error: ProtocolError)
    }

    /// Receives one message if one is waiting (or blocks when `dontWait` is false).
    public func receive(dontWait: Bool = true) throws(ZMQError) -> Received? {
        guard let frames = try socket.receiveMultipart(dontWait: dontWait) else { return nil }
        guard frames.count == 2 else {
            return .rejected(topic: frames.first.map { String(decoding: $0, as: UTF8.self) },
                             error: ProtocolError(code: .invalidJSON, field: nil,
                                                  message: "expected 2 frames (topic, body), got \(frames.count)"))
        }
        let topic = String(decoding: frames[0], as: UTF8.self)
        let message: Message
        do { message = try MessageCodec.decode(frames[1]) } catch { return .rejected(topic: topic, error: error) }
        guard recent.insert(message.envelope.id) else {
            duplicates += 1
            return .duplicate
        }
        sequences.observe(src: message.envelope.src, seq: message.envelope.seq)
        return .message(topic: topic, message: message, raw: frames[1])
    }
}

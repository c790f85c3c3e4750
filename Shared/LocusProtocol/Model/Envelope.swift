/// The header every v1 body carries (docs/protocol.md "Envelope"). Receivers de-duplicate
/// on `id` and detect loss with `tseq`.
public struct Envelope: Sendable, Equatable {
    /// Protocol version; always 1 for this module.
    public var v: Int
    /// Message type, e.g. "location" or "region.add".
    public var type: String
    /// Unique per message.
    public var id: String
    /// Time of the fact, seconds since the Unix epoch (UTC); the fix time for locations.
    public var t: Double
    /// The publishing instance, e.g. "provider/gps0".
    public var src: String
    /// Per-publisher counter, +1 per message on any topic; nil when the publisher does not count.
    public var seq: Int?
    /// Per-publisher, per-topic counter, +1 per message on this topic. A subscriber sees
    /// only the topics it subscribed to, so only this counter tells it exactly what it lost
    /// (`seq` has holes for every message of the publisher's other topics).
    public var tseq: Int?

    public init(v: Int = LocusProtocolVersion.current, type: String, id: String, t: Double, src: String, seq: Int? = nil,
                tseq: Int? = nil) {
        self.v = v
        self.type = type
        self.id = id
        self.t = t
        self.src = src
        self.seq = seq
        self.tseq = tseq
    }
}

/// One message: envelope plus typed body. The envelope's `type` follows the body.
public struct Message: Sendable, Equatable {
    public var envelope: Envelope
    public var body: Body

    /// Builds a v1 message; `envelope.type` is derived from `body` so they cannot disagree.
    public init(body: Body, id: String, t: Double, src: String, seq: Int? = nil, tseq: Int? = nil) {
        self.envelope = Envelope(type: body.type, id: id, t: t, src: src, seq: seq, tseq: tseq)
        self.body = body
    }

    /// Builds a message from an envelope read off the wire and its body.
    public init(envelope: Envelope, body: Body) {
        self.envelope = envelope
        self.body = body
    }
}

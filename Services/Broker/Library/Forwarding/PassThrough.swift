public import LocusBus
public import LocusService
public import LocusProtocol

/// The bus in `--stdio` mode: every valid message passes unchanged (the runtime has
/// already rejected and reported malformed lines), so the bus composes in pipelines.
public struct PassThrough: ServiceLogic {
    public init() {}
    public var subscriptions: [String] { [""] }

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        [Outbound(topic: topic, body: message.body, t: message.envelope.t)]
    }
}

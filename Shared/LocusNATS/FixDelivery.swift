/// How positions (`location.raw.*`, `location.fused.*`) travel on a NATS deployment
/// (`--fix-delivery`, docs/nats.md, "Fix delivery"). Every other flow is the same in both.
///
/// - `durable`: every fix is stored in the replicated stream `LOCUS_FIXES` and read through
///   durable consumers; a service killed or restarted gets every fix it missed, in order
///   (the kill test). Each fix costs the servers a replicated store, which caps a cluster
///   near the bare JetStream figure of its cores.
/// - `plain`: fixes are plain NATS messages on the same subjects and partitions, as on the
///   ZeroMQ bus, which keeps no fixes either: a service that is down misses the fixes
///   published meanwhile. The publisher keeps each device's last position in
///   `LOCUS_LAST_FIXES` (at most once per `LastPositionWriter.intervalSeconds`), which a
///   starting subscriber reads first. Events, commands and state stay replicated and
///   de-duplicated as in `durable`.
public enum FixDelivery: String, Sendable, CaseIterable {
    case durable
    case plain

    /// The mode named by `text` (`--fix-delivery`), nil for an unknown one.
    public init?(option text: String) {
        self.init(rawValue: text.lowercased())
    }
}

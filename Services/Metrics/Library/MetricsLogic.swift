public import LocusService
public import LocusProtocol

/// The exporter's service logic: reads every service's `health.*`, the notifier's
/// `notify.<sink>` records, `region.event.*`, `location.fused.*` (for fix age) and `error.*`,
/// and records them on the `MetricsBoard` the HTTP side renders. Publishes nothing but its
/// own health.
public struct MetricsLogic: ServiceLogic {
    public static let service = "metrics"
    public let board: MetricsBoard

    public init(board: MetricsBoard) {
        self.board = board
    }

    public var subscriptions: [String] {
        [Topic.healthPrefix, Topic.notifyPrefix, Topic.regionEventPrefix, Topic.locationFusedPrefix, Topic.errorPrefix]
    }

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        board.received(now: now)
        switch message.body {
        case .health(let health) where topic.hasPrefix(Topic.healthPrefix):
            board.record(health, src: message.envelope.src, now: now)
        case .notification(let notification) where topic == Topic.notify(notification.sink):
            board.record(notificationTo: notification.sink, status: notification.status)
        case .regionEvent(let event) where topic.hasPrefix(Topic.regionEventPrefix):
            board.record(regionEvent: event.event)
        case .location(let location) where topic == Topic.locationFused(location.device):
            board.record(fixOf: location.device, t: message.envelope.t, hacc: location.hacc)
        case .error(let report) where topic.hasPrefix(Topic.errorPrefix):
            board.record(errorOf: String(topic.dropFirst(Topic.errorPrefix.count)), code: report.code)
        default:
            break
        }
        return []
    }

    public var healthCounters: [String: Int] { board.counters }
}

/// Messages services publish about themselves and their deliveries.

public enum NotificationStatus: String, Sendable, Equatable, CaseIterable {
    case delivered, retrying, failed, suppressed
}

/// The outcome of delivering a notification. Type "notification" on `notify.<sink>`.
public struct Notification: Sendable, Equatable {
    /// The id of the event it is about.
    public var ref: String
    public var title: String
    public var body: String
    public var sink: String
    public var status: NotificationStatus

    public init(ref: String, title: String, body: String, sink: String, status: NotificationStatus) {
        self.ref = ref
        self.title = title
        self.body = body
        self.sink = sink
        self.status = status
    }
}

public enum HealthState: String, Sendable, Equatable, CaseIterable {
    case ok, degraded, failing
}

/// A service's heartbeat, at least every 5 s. Type "health" on `health.<service>`.
public struct Health: Sendable, Equatable {
    public var service: String
    public var state: HealthState
    /// Seconds since the service started.
    public var uptime: Double?
    /// Integer counters (received, sent, rejected, dropped, …); absent on the wire when empty.
    public var counters: [String: Int]
    /// Extension: short texts explaining the state.
    public var detail: [String: String]?

    public init(service: String, state: HealthState, uptime: Double? = nil, counters: [String: Int] = [:], detail: [String: String]? = nil) {
        self.service = service
        self.state = state
        self.uptime = uptime
        self.counters = counters
        self.detail = detail
    }
}

/// A problem a service reports, e.g. a rejected body. Type "error" on `error.<service>`.
public struct ErrorReport: Sendable, Equatable {
    public var code: String
    /// For a person.
    public var message: String
    /// The topic of the message that caused it.
    public var topic: String?
    /// The id of the message that caused it.
    public var ref: String?

    public init(code: String, message: String, topic: String? = nil, ref: String? = nil) {
        self.code = code
        self.message = message
        self.topic = topic
        self.ref = ref
    }
}

extension Health {
    /// On the bus's own health: the client that last published `service`'s health, from
    /// `detail.senders` (`geofence=geofence,provider=gps0`; `local` on a bus without an
    /// allow-list, where every publisher is the local identity). nil when the bus has not said.
    public func sender(of service: String) -> String? {
        guard let senders = detail?["senders"] else { return nil }
        if service == self.service { return "the bus itself" }
        if senders == "local" { return "local" }
        for pair in senders.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 && parts[0] == service { return String(parts[1]) }
        }
        return nil
    }
}

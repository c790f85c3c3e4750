public import LocusService
public import LocusProtocol

/// What `health.notifier` says: counters, the outbox backlog per sink, and a storage fault.
extension NotifierLogic {
    /// The notifier's counts, the sinks' deliveries, and each sink's outbox backlog as
    /// `backlog.<sink>` (a level, not a count: what the sink has still to deliver).
    public var healthCounters: [String: Int] {
        var values = writes.counts.merging(delivery?.counters ?? [:]) { $0 + $1 }.merging(hold.storage.counters) { $1 }
        if hold.isFailing { values["heldEvents"] = hold.held.count }
        for sink in delivery?.sinkNames ?? [] {
            if let backlog = try? outbox.backlog(for: sink) { values["backlog." + sink] = backlog }
        }
        return values
    }

    public var healthState: HealthState {
        hold.isFailing || delivery?.outboxFault != nil || (delivery?.counters["sinkErrors"] ?? 0) > 0 ? .degraded : .ok
    }

    /// The storage fault of the runtime thread's outbox, else one a sink worker meets on it.
    public var healthDetail: [String: String]? {
        if hold.isFailing { return hold.storage.healthDetail }
        return delivery?.outboxFault.map { ["storage": $0] }
    }
}

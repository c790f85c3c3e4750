/// How each counter a service reports in `health.<service>` becomes a Prometheus metric,
/// following Prometheus's naming: counters end in `_total`, levels (gauges) do not, the
/// service is a label, and a counter name's last dotted part becomes a label of its family.
///
/// - The runtime's counters, which every service has, share families across services
///   (`sent` → `locus_messages_sent_total{service="fusion"}`; `dropped` → `locus_bus_dropped_total`).
/// - Levels named in `gauges` stay gauges (`devices` → `locus_fusion_devices`).
/// - Families with their own label: `lag.<consumer>` (a transport's consumer lag, see
///   docs/metrics.md), `backlog.<sink>` (the notifier's outbox), `source.battery.<device>`.
/// - Any other `a.b.c` → `locus_<service>_a_b_total{kind="c"}`; a plain name → `locus_<service>_<name>_total`.
public enum HealthCounterCatalog {
    public struct Mapping: Sendable, Equatable {
        public var name: String
        public var type: Exposition.MetricType
        public var help: String
        public var labels: [(String, String)]
        /// Multiplies the reported integer (a percent becomes a ratio).
        public var scale: Double

        public static func == (a: Mapping, b: Mapping) -> Bool {
            a.name == b.name && a.type == b.type && a.help == b.help && a.scale == b.scale
                && a.labels.elementsEqual(b.labels, by: { $0 == $1 })
        }
    }

    /// The runtime's counters (Shared/LocusBus/Runtime/ServiceRuntime.swift), common to every service.
    static let runtime: [String: (name: String, help: String)] = [
        "sent": ("locus_messages_sent_total", "Messages the service published."),
        "received": ("locus_messages_received_total", "Messages the service received and handled."),
        "rejected": ("locus_messages_rejected_total", "Inputs the service refused (each also on error.<service>)."),
        "duplicates": ("locus_messages_duplicates_total", "Repeated messages dropped by id."),
        "gaps": ("locus_messages_lost_total", "Messages found missing from a publisher's per-topic sequence (tseq)."),
        "resent": ("locus_messages_resent_total", "Messages published again after the bus came back."),
        "dropped": ("locus_bus_dropped_total", "Bus drops: for locus-bus what it could not deliver, for a service full-queue episodes of its publisher."),
        "busLost": ("locus_bus_disconnections_total", "Times the service lost its connection to the bus."),
        "otherShard": ("locus_messages_other_shard_total", "Messages skipped because another shard handles their device."),
    ]

    /// Counters that are levels, not counts.
    static let gauges: Set<String> = [
        "devices", "regions", "cachedTopics", "replayRingMessages", "replayLogRecords", "clientsKnown", "devicesServed", "clients",
        "openStreams", "source.devices",
    ]

    public static func mapping(service: String, counter: String) -> Mapping {
        let prefix = "locus_" + snake(service)
        if let known = runtime[counter] {
            return Mapping(name: known.name, type: .counter, help: known.help, labels: [], scale: 1)
        }
        if let consumer = counter.dropPrefix("lag.") {
            return Mapping(name: "locus_consumer_lag_messages", type: .gauge,
                           help: "Messages waiting for a consumer of the service's transport (reported as health counter lag.<consumer>).",
                           labels: [("consumer", consumer)], scale: 1)
        }
        if let sink = counter.dropPrefix("backlog.") {
            return Mapping(name: "locus_notifier_outbox_backlog", type: .gauge,
                           help: "Notifications in the outbox that a sink has still to deliver.", labels: [("sink", sink)], scale: 1)
        }
        if let device = counter.dropPrefix("source.battery.") {
            return Mapping(name: "locus_device_battery_ratio", type: .gauge,
                           help: "Battery level a phone last reported, 0 to 1.", labels: [("device", device)], scale: 0.01)
        }
        if gauges.contains(counter) {
            return Mapping(name: "\(prefix)_\(snake(counter))", type: .gauge, help: "Health counter \(counter) of locus-\(service) (a level).",
                           labels: [], scale: 1)
        }
        if let dot = counter.lastIndex(of: "."), dot != counter.startIndex, counter.index(after: dot) != counter.endIndex {
            let base = String(counter[..<dot])
            return Mapping(name: "\(prefix)_\(snake(base))_total", type: .counter,
                           help: "Health counters \(base).<kind> of locus-\(service).",
                           labels: [("kind", String(counter[counter.index(after: dot)...]))], scale: 1)
        }
        return Mapping(name: "\(prefix)_\(snake(counter))_total", type: .counter, help: "Health counter \(counter) of locus-\(service).",
                       labels: [], scale: 1)
    }

    /// `fixesServed` → `fixes_served`, `source.refused` → `source_refused`.
    static func snake(_ text: String) -> String {
        var result = ""
        var previousWasLower = false
        for character in text {
            if character.isUppercase {
                if previousWasLower { result.append("_") }
                result += character.lowercased()
                previousWasLower = false
            } else if character.isLetter || character.isNumber {
                result.append(character)
                previousWasLower = true
            } else {
                if result.last != "_" { result.append("_") }
                previousWasLower = false
            }
        }
        return result
    }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) && count > prefix.count ? String(dropFirst(prefix.count)) : nil
    }
}

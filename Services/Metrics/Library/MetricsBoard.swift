import Foundation
import LocusProtocol

/// Everything the exporter knows, shared between the bus thread (which records messages)
/// and the HTTP thread (which renders `/metrics`), behind one lock. Bounded: at most
/// `maximumDevices` devices (the oldest fix is forgotten first) and `maximumCodes` error
/// codes per service.
public final class MetricsBoard: @unchecked Sendable {
    struct ServiceHealth {
        var service: String
        var health: Health
        var receivedAt: Double
    }

    struct Fix {
        var t: Double
        var hacc: Double
    }

    public let maximumDevices: Int
    public let maximumCodes = 64
    /// A service whose health is older than this is reported down (`locus_service_up` 0).
    public let staleAfterSeconds: Double
    private let lock = NSLock()
    private var services: [String: ServiceHealth] = [:]
    private var notifications: [String: [NotificationStatus: Int]] = [:]
    private var geofenceEvents: [RegionEventKind: Int] = [:]
    private var fixes: [String: Fix] = [:]
    private var errors: [String: [String: Int]] = [:]
    private var messages = 0
    private var evicted = 0
    private var lastMessageAt: Double?

    /// Devices whose fix age is exported unless told (`--max-devices`).
    public static let defaultMaximumDevices = 10_000
    /// A service's health older than this is reported down unless told (`--stale-after`).
    public static let defaultStaleAfterSeconds = 15.0

    public init(maximumDevices: Int = defaultMaximumDevices, staleAfterSeconds: Double = defaultStaleAfterSeconds) {
        self.maximumDevices = maximumDevices
        self.staleAfterSeconds = staleAfterSeconds
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: recording (bus thread)

    func received(now: Double) {
        locked {
            messages += 1
            lastMessageAt = now
        }
    }

    /// `src` is the publisher (`service/instance`): instances of one service are kept apart.
    func record(_ health: Health, src: String, now: Double) {
        locked { services[src] = ServiceHealth(service: health.service, health: health, receivedAt: now) }
    }

    func record(notificationTo sink: String, status: NotificationStatus) {
        locked { notifications[sink, default: [:]][status, default: 0] += 1 }
    }

    func record(regionEvent kind: RegionEventKind) {
        locked { geofenceEvents[kind, default: 0] += 1 }
    }

    func record(fixOf device: String, t: Double, hacc: Double) {
        locked {
            if fixes[device] == nil, fixes.count >= maximumDevices, let oldest = fixes.min(by: { $0.value.t < $1.value.t })?.key {
                fixes[oldest] = nil
                evicted += 1
            }
            fixes[device] = Fix(t: max(t, fixes[device]?.t ?? t), hacc: hacc)
        }
    }

    func record(errorOf service: String, code: String) {
        locked {
            let key = errors[service]?[code] != nil || (errors[service]?.count ?? 0) < maximumCodes ? code : "other"
            errors[service, default: [:]][key, default: 0] += 1
        }
    }

    // MARK: reading (any thread)

    /// Ready once something arrived from the bus within `window` seconds (the bus alone
    /// publishes its health every few seconds).
    public func isReady(now: Double, window: Double = 10) -> Bool {
        locked { lastMessageAt.map { now - $0 <= window } ?? false }
    }

    public var counters: [String: Int] {
        locked { ["messages": messages, "servicesSeen": services.count, "devicesTracked": fixes.count, "devicesEvicted": evicted] }
    }

    /// The exposition of everything known at wall time `now`. The state is copied under the
    /// lock (copy-on-write: cheap) and rendered outside it, so a scrape never holds up the bus thread.
    public func exposition(now: Double) -> Exposition {
        let (services, notifications, geofenceEvents, fixes, errors, messages, evicted) = locked {
            (self.services, self.notifications, self.geofenceEvents, self.fixes, self.errors, self.messages, self.evicted)
        }
        var out = Exposition()
        for (src, entry) in services { add(entry, src: src, now: now, to: &out) }
        for (sink, counts) in notifications {
            for status in NotificationStatus.allCases {
                out.add("locus_notifications_total", .counter, help: "Notification deliveries recorded on notify.<sink>, by sink and status.",
                        labels: [("sink", sink), ("status", status.rawValue)], value: Double(counts[status] ?? 0))
            }
        }
        for kind in RegionEventKind.allCases {
            out.add("locus_geofence_events_total", .counter, help: "Region events seen on region.event.*, by kind.",
                    labels: [("kind", kind.rawValue)], value: Double(geofenceEvents[kind] ?? 0))
        }
        for (device, fix) in fixes {
            out.add("locus_fix_age_seconds", .gauge, help: "Seconds since the time of the device's newest fused fix.",
                    labels: [("device", device)], value: max(0, now - fix.t))
            out.add("locus_fix_horizontal_accuracy_meters", .gauge, help: "Horizontal accuracy (68 %) of the device's newest fused fix.",
                    labels: [("device", device)], value: fix.hacc)
        }
        for (service, codes) in errors {
            for (code, count) in codes {
                out.add("locus_errors_total", .counter, help: "Problems reported on error.<service>, by service and code.",
                        labels: [("service", service), ("code", code)], value: Double(count))
            }
        }
        out.add("locus_metrics_messages_total", .counter, help: "Bus messages the exporter read.", value: Double(messages))
        out.add("locus_metrics_devices_evicted_total", .counter, help: "Devices forgotten to stay within --max-devices.", value: Double(evicted))
        return out
    }

    private func add(_ entry: ServiceHealth, src: String, now: Double, to out: inout Exposition) {
        let health = entry.health
        let base = [("service", entry.service), ("src", src)]
        let age = now - entry.receivedAt
        out.add("locus_service_up", .gauge, help: "1 while the service's health arrives (within --stale-after seconds), else 0.",
                labels: base, value: age <= staleAfterSeconds ? 1 : 0)
        out.add("locus_service_health_age_seconds", .gauge, help: "Seconds since the service's last health message.", labels: base, value: max(0, age))
        for state in HealthState.allCases {
            out.add("locus_service_state", .gauge, help: "The state in the service's last health message (1 for the current one).",
                    labels: base + [("state", state.rawValue)], value: health.state == state ? 1 : 0)
        }
        if let uptime = health.uptime {
            out.add("locus_service_uptime_seconds", .gauge, help: "Seconds since the service started, as it last reported.", labels: base, value: uptime)
        }
        for (counter, value) in health.counters {
            let mapping = HealthCounterCatalog.mapping(service: entry.service, counter: counter)
            out.add(mapping.name, mapping.type, help: mapping.help, labels: base + mapping.labels, value: Double(value) * mapping.scale)
        }
    }
}

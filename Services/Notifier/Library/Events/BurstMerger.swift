/// Collects a device's region entries for a short window so a device that appears inside
/// several overlapping regions at once gets one "3 regions entered" notification.
struct BurstMerger {
    struct Entry: Equatable {
        var eventID: String
        var event: RegionEventSummary
    }

    var windowSeconds: Double
    private var open: [String: (start: Double, entries: [Entry])] = [:]

    init(windowSeconds: Double) {
        self.windowSeconds = windowSeconds
    }

    var isEnabled: Bool { windowSeconds > 0 }

    /// Whether any device's window is open (a tick with none has nothing to store).
    var hasOpenBursts: Bool { !open.isEmpty }

    mutating func add(_ entry: Entry, device: String, t: Double) {
        if open[device] == nil { open[device] = (t, []) }
        open[device]!.entries.append(entry)
    }

    /// Bursts whose window has closed at `now` (all of them when `now` is nil), oldest first.
    mutating func due(now: Double?) -> [[Entry]] {
        let ready = open.filter { now == nil || $0.value.start + windowSeconds <= now! }
            .sorted { ($0.value.start, $0.key) < ($1.value.start, $1.key) }
        for (device, _) in ready { open[device] = nil }
        return ready.map(\.value.entries)
    }
}

/// The parts of a region event a notification needs.
struct RegionEventSummary: Equatable {
    var owner: String
    var regionId: String
    var device: String
    var kind: NotificationKind
    var t: Double
    var lat: Double
    var lon: Double
    var hacc: Double
}

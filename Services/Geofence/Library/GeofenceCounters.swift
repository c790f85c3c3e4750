/// The geofence's health counters as plain fields: bumping one on every fix costs an
/// add, where a dictionary keyed by name would hash a string.
struct GeofenceCounters: Sendable, Equatable {
    var fixes = 0
    /// Fixes inside their device's `QuietZone`: taken without per-region work.
    var quietFixes = 0
    var commands = 0
    var ignored = 0
    /// Fixes at or before the last fix a restarted geofence found in its store: handled before.
    var staleFixes = 0
    /// Fixes older than their device's newest (history), evaluated for late crossings.
    var lateFixes = 0
    var regionsAdded = 0
    var regionsRemoved = 0
    var regionsFailed = 0
    var events = 0
    var eventsSuppressed = 0

    /// The counters that moved, by the names `health.geofence` reports.
    var values: [String: Int] {
        let all = [("fixes", fixes), ("quietFixes", quietFixes), ("commands", commands), ("ignored", ignored), ("staleFixes", staleFixes), ("lateFixes", lateFixes),
                   ("regionsAdded", regionsAdded), ("regionsRemoved", regionsRemoved), ("regionsFailed", regionsFailed),
                   ("events", events), ("eventsSuppressed", eventsSuppressed)]
        return Dictionary(uniqueKeysWithValues: all.filter { $0.1 != 0 })
    }
}

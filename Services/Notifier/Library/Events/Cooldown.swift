/// Remembers when each region/device/kind last produced a notification, to suppress
/// repeats inside the cooldown window.
struct Cooldown {
    var windowSeconds: Double
    private var last: [String: Double] = [:]

    init(windowSeconds: Double) {
        self.windowSeconds = windowSeconds
    }

    /// Whether notifications are held back at all (a key need not be built otherwise).
    var isEnabled: Bool { windowSeconds > 0 }

    /// True (and remembered) when a notification may go out at `t`.
    mutating func allow(_ key: String, t: Double) -> Bool {
        guard windowSeconds > 0 else { return true }
        if let previous = last[key], t - previous < windowSeconds, t >= previous { return false }
        last[key] = t
        if last.count > 10_000 { last = last.filter { t - $0.value < windowSeconds } }
        return true
    }
}

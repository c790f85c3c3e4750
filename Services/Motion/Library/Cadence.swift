/// Whether a device reports at a steady rhythm: its good fixes in a row, each within the
/// cadence limit of the one before and not far beyond the rhythm so far. Only a device with
/// an established cadence can miss a fix; one that sent a single fix, or sends one every few
/// minutes, has no "next fix" to wait for, so its silence is not an outage.
public struct Cadence: Sendable, Equatable {
    /// Smoothed interval between good fixes, seconds (nil until two fixes in rhythm).
    public private(set) var intervalSeconds: Double?
    /// Good fixes in a row at the rhythm, counting the first.
    public private(set) var fixesInRow = 0

    public init() {}

    /// Takes the next good fix, `gap` seconds (of fix time) after the previous one (nil for
    /// the first). A gap over `maximumIntervalSeconds`, or over four intervals plus 2 s, breaks
    /// the rhythm: counting starts again from this fix.
    public mutating func observe(gap: Double?, maximumIntervalSeconds: Double) {
        guard let gap else {
            fixesInRow = 1
            return
        }
        guard gap > 0 else { return }
        let inRhythm = gap <= maximumIntervalSeconds && (intervalSeconds.map { gap <= 4 * $0 + 2 } ?? true)
        guard inRhythm else {
            intervalSeconds = nil
            fixesInRow = 1
            return
        }
        intervalSeconds = intervalSeconds.map { $0 + 0.2 * (gap - $0) } ?? gap
        fixesInRow += 1
    }

    /// Whether at least `minimumFixes` good fixes came in rhythm.
    public func isEstablished(minimumFixes: Int) -> Bool { fixesInRow >= minimumFixes }
}

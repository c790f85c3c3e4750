import Foundation

/// The last-value cache of positions with `--fix-delivery plain`: a publisher writes each
/// subject's newest position to `LOCUS_LAST_FIXES` at most once per `intervalSeconds`, so the
/// cache costs the servers one replicated store per device per interval instead of one per
/// fix. A position held back is written when its interval has passed (`writeDue`, called
/// after every batch) or at `writeAll` (stop); so the cache is at most one interval behind,
/// and once a device stops moving it holds its very last position.
public struct LastPositionWriter {
    public static let intervalSeconds = 5.0

    private let interval: Double
    private let write: (_ subject: String, _ body: [UInt8]) -> Void
    /// When each subject's last value was written (monotonic seconds).
    private var written: [String: Double] = [:]
    /// The newest position of each subject not written yet.
    private var waiting: [String: [UInt8]] = [:]
    private var nextScan = 0.0
    public private(set) var writes = 0

    public init(intervalSeconds: Double = Self.intervalSeconds, write: @escaping (_ subject: String, _ body: [UInt8]) -> Void) {
        interval = intervalSeconds
        self.write = write
    }

    /// A position was just published plainly on `subject`.
    public mutating func note(subject: String, body: [UInt8], now: Double) {
        if let last = written[subject], now - last < interval {
            waiting[subject] = body
            return
        }
        emit(subject, body, now)
    }

    /// Writes the waiting positions whose interval has passed (scanning at most a few times per interval).
    public mutating func writeDue(now: Double) {
        guard !waiting.isEmpty, now >= nextScan else { return }
        nextScan = now + interval / 4
        for (subject, body) in waiting where now - (written[subject] ?? -.infinity) >= interval {
            emit(subject, body, now)
        }
    }

    /// Writes every waiting position (at stop).
    public mutating func writeAll(now: Double) {
        for (subject, body) in waiting { emit(subject, body, now) }
    }

    private mutating func emit(_ subject: String, _ body: [UInt8], _ now: Double) {
        waiting[subject] = nil
        written[subject] = now
        writes += 1
        write(StreamLayout.lastValueSubject(forSubject: subject), body)
    }
}

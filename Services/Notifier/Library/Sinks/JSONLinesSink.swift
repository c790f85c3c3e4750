import Foundation

/// Appends one JSON object per line. A line reported delivered has reached the kernel, so
/// it survives the notifier crashing, the same promise the outbox makes; with
/// `syncEachLine` it is also fsynced and survives a power cut, at the price of a disk flush
/// (milliseconds, hundreds on a busy disk) per notification. After a crash the same line
/// may appear twice; readers drop repeats by `id`.
public final class JSONLinesSink: NotificationSink {
    public let name: String
    public let path: String
    public let syncEachLine: Bool

    public init(name: String = "jsonl", path: String, syncEachLine: Bool = false) {
        self.name = name
        self.path = path
        self.syncEachLine = syncEachLine
    }

    /// One short write: quick enough for the runtime thread while the worker is idle.
    public var deliversInline: Bool { true }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        deliver([record])[0]
    }

    /// A burst is one write of all its lines: they reach the kernel together or are all retried
    /// (a line written by a failed attempt may then appear twice; readers drop repeats by `id`).
    public func deliver(_ records: [NotificationRecord]) -> [DeliveryOutcome] {
        func all(_ outcome: DeliveryOutcome) -> [DeliveryOutcome] { Array(repeating: outcome, count: records.count) }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return all(.retry("cannot open \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var lines: [UInt8] = []
        for record in records {
            record.appendJSON(to: &lines)
            lines.append(UInt8(ascii: "\n"))
        }
        // One write call with O_APPEND keeps concurrent appenders from interleaving a line.
        let written = lines.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == lines.count else { return all(.retry("write to \(path) failed: \(String(cString: strerror(errno)))")) }
        guard !syncEachLine || fsync(fd) == 0 else { return all(.retry("fsync \(path) failed: \(String(cString: strerror(errno)))")) }
        return all(.delivered)
    }
}

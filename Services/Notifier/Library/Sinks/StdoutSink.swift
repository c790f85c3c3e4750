import Foundation

/// Prints "title — body" lines: the quickest way to see notifications in a terminal.
/// In `--stdio` mode the lines go to stderr so stdout stays text-form protocol.
public final class StdoutSink: NotificationSink {
    public let name: String
    private let fd: Int32

    public init(name: String = "stdout", useStandardError: Bool = false) {
        self.name = name
        fd = useStandardError ? 2 : 1
    }

    /// One short write: quick enough for the runtime thread while the worker is idle.
    public var deliversInline: Bool { true }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        let line = Array("\(record.title) — \(record.body)\n".utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == line.count ? .delivered : .retry("write to fd \(fd) failed: \(String(cString: strerror(errno)))")
    }
}

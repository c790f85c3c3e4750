import Foundation

/// The server thread's counts, read by the bus thread for `health.gpsd`: the server
/// stores a whole snapshot after each round of work, the health message reads the latest.
public final class GpsdStatistics: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]

    public init() {}

    public func store(_ snapshot: [String: Int]) {
        lock.lock()
        values = snapshot
        lock.unlock()
    }

    public var snapshot: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

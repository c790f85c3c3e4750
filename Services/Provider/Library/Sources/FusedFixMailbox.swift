import Foundation
public import LocusProtocol

/// Fused fixes on their way from the service logic (which receives `location.fused.<device>`
/// from the bus) to a source thread that learns from them. Bounded: a source that falls
/// behind keeps the newest fixes, which are the ones its recent scans can match.
public final class FusedFixMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var fixes: [(location: Location, t: Double)] = []
    public let capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// Posts one fix (any thread).
    public func post(_ location: Location, t: Double) {
        lock.lock()
        fixes.append((location, t))
        if fixes.count > capacity { fixes.removeFirst(fixes.count - capacity) }
        lock.unlock()
    }

    /// Takes every fix posted so far, oldest first.
    public func take() -> [(location: Location, t: Double)] {
        lock.lock()
        defer { lock.unlock() }
        let taken = fixes
        fixes.removeAll(keepingCapacity: true)
        return taken
    }
}

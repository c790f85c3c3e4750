import Foundation

/// A one-way "please stop" signal shared by the runtime and a source thread, with a
/// sleep that wakes as soon as it is raised so pacing never delays shutdown.
public final class StopFlag: @unchecked Sendable {
    private let condition = NSCondition()
    private var raised = false

    public init() {}

    public var isRaised: Bool {
        condition.lock()
        defer { condition.unlock() }
        return raised
    }

    public func raise() {
        condition.lock()
        raised = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps up to `seconds`; returns false when woken by `raise()` (the caller should stop).
    @discardableResult
    public func sleep(seconds: Double) -> Bool {
        guard seconds > 0 else { return !isRaised }
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !raised {
            if !condition.wait(until: deadline) { break }
        }
        return !raised
    }
}

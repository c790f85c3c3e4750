public import Foundation

/// A thread that owns its resources (a sink, its own database connection) and takes work
/// through a wake-up, after czmq's actor pattern: its owner starts it, changes what it waits
/// for under its lock and wakes it, and stops it with a bounded wait. One lock guards both
/// the thread's life (stop asked, finished) and the state its owner shares with it, so a
/// wake-up can never fall between the thread's check and its wait.
///
/// Methods named `…Locked` and the `stopRequested`/`finished` reads expect the lock held,
/// i.e. a call inside `locked`.
public final class WorkerThread: @unchecked Sendable {
    public let name: String
    private let condition = NSCondition()
    private var started = false
    /// Set by `stop`; the thread's body returns soon after it reads it (lock held).
    public private(set) var stopRequested = false
    /// Set when the thread's body has returned (lock held).
    public private(set) var finished = false

    public init(name: String) {
        self.name = name
    }

    /// Runs `body` on a new thread named `name`; `body` should return once `stopRequested`.
    public func start(_ body: @escaping @Sendable () -> Void) {
        locked { started = true }
        let thread = Thread { [self] in
            body()
            locked {
                finished = true
                condition.broadcast()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Runs `body` with the lock held.
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// Wakes every waiter (lock held).
    public func broadcastLocked() {
        condition.broadcast()
    }

    /// Wakes the thread after its owner changed what it waits for outside `locked`.
    public func wake() {
        locked { condition.broadcast() }
    }

    /// Waits for a wake-up (lock held; it is released meanwhile). Returns false when
    /// `deadline` passed first. Callers loop on their own condition: wake-ups may be spurious.
    @discardableResult
    public func waitLocked(until deadline: Date? = nil) -> Bool {
        guard let deadline else {
            condition.wait()
            return true
        }
        return condition.wait(until: deadline)
    }

    /// Whether a stop was asked for (takes the lock).
    public var isStopping: Bool { locked { stopRequested } }

    /// Sleeps up to `seconds` (a back-off), waking early only to stop.
    public func pause(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        locked {
            while !stopRequested && waitLocked(until: deadline) {}
        }
    }

    /// Asks the thread to stop and waits up to `timeoutSeconds` for its body to return.
    public func stop(timeoutSeconds: Double) {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        locked {
            stopRequested = true
            condition.broadcast()
            while started && !finished && condition.wait(until: deadline) {}
        }
    }
}

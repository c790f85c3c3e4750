import Foundation
import LocusService

/// The counters an HTTP server keeps about its connections, so `HTTPConnections`' outcomes
/// are counted the same way by every server.
public protocol ConnectionStatistics: Sendable {
    var connectionsAccepted: Int { get set }
    var refusedBusy: Int { get set }
    var badRequests: Int { get set }
    var requestTimeouts: Int { get set }
    var responsesSent: Int { get set }
}

extension ConnectionStatistics {
    public mutating func record(_ outcome: HTTPConnections.Outcome) {
        switch outcome {
        case .accepted: connectionsAccepted += 1
        case .refusedBusy: refusedBusy += 1
        case .badRequest: badRequests += 1
        case .requestTimeout: requestTimeouts += 1
        case .responseSent: responsesSent += 1
        }
    }
}

/// What other threads may do to a server thread: ask it to stop (waking its poll) and read a
/// copy of its counters. The server thread counts through `count`.
public final class ServerControl<Statistics: ConnectionStatistics>: @unchecked Sendable {
    private let wakeup = Wakeup()
    private let lock = NSLock()
    private var stopRequested = false
    private var stats: Statistics

    public init(_ statistics: Statistics) { stats = statistics }

    /// Polled by the server thread; `stop()` makes it readable.
    public var wakeupFD: Int32 { wakeup.readFD }

    /// Empties the wake-up pipe after a poll found it readable.
    public func clearWakeup() { wakeup.clear() }

    /// A copy of the counters (any thread).
    public var statistics: Statistics {
        lock.lock()
        defer { lock.unlock() }
        return stats
    }

    /// Ends the server's loop soon (any thread).
    public func stop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
        wakeup.signal()
    }

    public var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    public func count(_ change: (inout Statistics) -> Void) {
        lock.lock()
        change(&stats)
        lock.unlock()
    }

    /// Counts what `HTTPConnections` reports: pass it as the connections' `record`.
    public func record(_ outcome: HTTPConnections.Outcome) {
        count { $0.record(outcome) }
    }
}

/// Monotonic seconds, for the servers' deadlines (wall-clock steps must not expire clients).
public enum MonotonicClock {
    public static func seconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

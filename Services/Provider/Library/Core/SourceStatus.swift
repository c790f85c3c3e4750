import Foundation

/// What a source says about itself between fixes (waiting, fix, no fix, reconnecting),
/// shared with the logic so health can tell "no fix" from "no data". Written by the
/// source thread, read by the runtime thread.
public final class SourceStatus: @unchecked Sendable {
    /// The receiver's state as far as the source knows.
    public enum FixState: String, Sendable {
        case waiting, fix
        case noFix = "no fix"
        case disconnected
        case finished
    }

    private let lock = NSLock()
    private var state: FixState = .waiting
    private var note: String?
    private var numbers: [String: Int] = [:]
    private var remarks: [String: String] = [:]

    public init() {}

    public func set(_ state: FixState, note: String? = nil) {
        lock.lock()
        self.state = state
        if let note { self.note = note }
        lock.unlock()
    }

    /// Replaces the source's own counters (e.g. the NMEA decoder's).
    public func setCounters(_ counters: [String: Int]) {
        lock.lock()
        numbers = counters
        lock.unlock()
    }

    /// Sets a lasting remark for health's detail (e.g. a week-rollover repair), kept until replaced.
    public func setRemark(_ key: String, _ value: String) {
        lock.lock()
        remarks[key] = value
        lock.unlock()
    }

    public var snapshot: (state: FixState, note: String?, counters: [String: Int], remarks: [String: String]) {
        lock.lock()
        defer { lock.unlock() }
        return (state, note, numbers, remarks)
    }
}

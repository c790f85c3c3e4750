import Foundation
import LocusService
import LocusProtocol

/// Where sink workers leave their `notify.<sink>` records and problems for the runtime
/// thread, which publishes them from `tick` and `finish` (only that thread owns sockets).
final class DeliveryReports: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Outbound] = []
    private var counts: [String: Int] = [:]

    /// When set, records go straight to the runtime (through its injector) instead of
    /// waiting for the next tick, which held every `notify.<sink>` record up to a tick.
    private var forward: (@Sendable (Outbound) -> Void)?

    func setForward(_ forward: (@Sendable (Outbound) -> Void)?) {
        lock.lock()
        self.forward = forward
        lock.unlock()
    }

    func add(_ outbound: Outbound, counter: String) {
        lock.lock()
        counts[counter, default: 0] += 1
        if let forward {
            lock.unlock()
            forward(outbound)
            return
        }
        pending.append(outbound)
        lock.unlock()
    }

    /// Counts a record the caller publishes itself (an inline delivery).
    func count(_ counter: String) {
        lock.lock()
        counts[counter, default: 0] += 1
        lock.unlock()
    }

    func take() -> [Outbound] {
        lock.lock()
        defer { lock.unlock() }
        let taken = pending
        pending.removeAll()
        return taken
    }

    /// Sinks whose worker cannot read or write the outbox now (a storage episode seen from
    /// its thread), with the error: the notifier is `degraded` while any is.
    private var outboxFaults: [String: String] = [:]

    /// Records that `sink`'s worker met `message` on the outbox; true when it was working before.
    func outboxFailed(sink: String, _ message: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return outboxFaults.updateValue(message, forKey: sink) == nil
    }

    /// Records that `sink`'s worker reads and writes the outbox again.
    func outboxWorks(sink: String) {
        lock.lock()
        outboxFaults[sink] = nil
        lock.unlock()
    }

    /// One current outbox fault of a worker, if any.
    var outboxFault: String? {
        lock.lock()
        defer { lock.unlock() }
        return outboxFaults.sorted { $0.key < $1.key }.first.map { "sink \($0.key): \($0.value)" }
    }

    var counters: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}

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

    var counters: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}

import Foundation
import LocusBus
import LocusProtocol

/// Where sink workers leave their `notify.<sink>` records and problems for the runtime
/// thread, which publishes them from `tick` and `finish` (only that thread owns sockets).
final class DeliveryReports: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Outbound] = []
    private var counts: [String: Int] = [:]

    func add(_ outbound: Outbound, counter: String) {
        lock.lock()
        pending.append(outbound)
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

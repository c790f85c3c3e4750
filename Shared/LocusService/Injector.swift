import Foundation
public import LocusProtocol

/// How threads other than the runtime's (a serial reader, a file replayer, a gpsd client)
/// hand work to the one thread that owns the sockets: a locked queue plus an eventfd the
/// runtime's poll loop watches. No socket crosses threads.
public final class Injector: @unchecked Sendable {
    public enum Item: Sendable {
        /// Publish as is (a provider's fix).
        case publish(Outbound)
        /// Pass through the service logic as if it had arrived on the bus.
        case deliver(topic: String, message: Message)
        /// A report for `error.<service>` and the log.
        case problem(code: String, message: String)
        /// This source has ended (EOF of a replayed file).
        case finished
    }

    private let lock = NSLock()
    private var items: [Item] = []
    let wakeup = Wakeup()
    package var eventFD: Int32 { wakeup.readFD }
    /// A producer waits while this many items are queued, so a fast file replay cannot outrun the bus.
    public let capacity: Int
    private let space = DispatchSemaphore(value: 0)
    private var waiting = 0

    package init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Queues an item and wakes the runtime; blocks while the queue is full. Only the item
    /// that finds the queue empty signals (one system call per batch, not per fix): the runtime
    /// clears the signal before it takes the queue, so whatever it does not take signals again.
    public func send(_ item: Item) {
        lock.lock()
        while items.count >= capacity {
            waiting += 1
            lock.unlock()
            space.wait()
            lock.lock()
        }
        let wasEmpty = items.isEmpty
        items.append(item)
        lock.unlock()
        if wasEmpty { wakeup.signal() }
    }

    public func publish(_ outbound: Outbound) { send(.publish(outbound)) }
    public func finish() { send(.finished) }

    /// Takes everything queued (runtime thread only).
    package func drain() -> [Item] {
        wakeup.clear()
        lock.lock()
        let taken = items
        items.removeAll(keepingCapacity: true)
        let wake = waiting
        waiting = 0
        lock.unlock()
        for _ in 0..<wake { space.signal() }
        return taken
    }
}

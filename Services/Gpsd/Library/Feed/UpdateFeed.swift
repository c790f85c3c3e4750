import Foundation

/// The hand-off from the thread that owns the bus sockets to the thread that owns the
/// client sockets: a bounded queue that never makes the bus side wait. When the server
/// side falls `capacity` updates behind, the oldest update is dropped (a newer fix of the
/// same device supersedes it anyway) and counted.
///
/// `wake` is called when an update lands in an empty queue; the consumer must clear its
/// wake-up signal before calling `drain()`, so no update is left behind unsignalled.
public final class UpdateFeed: @unchecked Sendable {
    public let capacity: Int
    private let wake: @Sendable () -> Void
    private let lock = NSLock()
    private var items: [DeviceUpdate] = []
    private var head = 0
    private var droppedCount = 0

    public init(capacity: Int, wake: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.wake = wake
    }

    /// Queues an update (bus thread); never blocks.
    public func deliver(_ update: DeviceUpdate) {
        lock.lock()
        let wasEmpty = items.count == head
        if items.count - head >= capacity {
            head += 1
            droppedCount += 1
        }
        items.append(update)
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        lock.unlock()
        if wasEmpty { wake() }
    }

    /// Takes everything queued, oldest first (server thread).
    public func drain() -> [DeviceUpdate] {
        lock.lock()
        defer { lock.unlock() }
        let taken = Array(items[head...])
        items.removeAll(keepingCapacity: true)
        head = 0
        return taken
    }

    /// Updates dropped because the server side fell behind.
    public var dropped: Int {
        lock.lock()
        defer { lock.unlock() }
        return droppedCount
    }
}

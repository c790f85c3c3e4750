public import LocusService
/// The last messages a publisher handed to the bus, so they can be sent again after the
/// bus restarts.
///
/// When the bus process dies, what it had received but not yet forwarded, and what was
/// still in the publisher's queue towards it, is gone; the publisher only learns of the
/// death a moment later (the unsubscribe). Re-sending the newest messages on reconnection
/// closes that window; receivers drop the copies that did arrive by their `id`
/// (docs/protocol.md: receivers de-duplicate on `id`).
///
/// Bounded by count and by age: an entry older than `maxAgeSeconds` at the time of a newer
/// send is forgotten, so the ring holds what was sent in the last moments before the bus
/// went away, however long it then stays away.
public struct ResendRing: Sendable {
    public static let defaultCapacity = 2_048
    public static let defaultMaxAgeSeconds = 5.0

    /// One message as it was sent, with the wall-clock time of sending.
    public struct Entry: Sendable, Equatable {
        public var topic: String
        public var body: [UInt8]
        public var sentAt: Double
    }

    public let capacity: Int
    public let maxAgeSeconds: Double
    private var slots: [Entry] = []
    /// Index of the oldest entry in `slots` (the ring wraps once it is full).
    private var head = 0
    private var live = 0

    public init(capacity: Int = ResendRing.defaultCapacity, maxAgeSeconds: Double = ResendRing.defaultMaxAgeSeconds) {
        self.capacity = max(0, capacity)
        self.maxAgeSeconds = maxAgeSeconds
        slots.reserveCapacity(self.capacity)
    }

    public var count: Int { live }

    /// Remembers a sent message, forgetting the oldest beyond the count bound and every
    /// entry older than the age bound at `now`.
    public mutating func record(topic: String, body: [UInt8], now: Double) {
        guard capacity > 0 else { return }
        expire(before: now - maxAgeSeconds)
        let entry = Entry(topic: topic, body: body, sentAt: now)
        if slots.count < capacity {
            slots.append(entry)
            live += 1
        } else {
            let index = (head + live) % capacity
            slots[index] = entry
            if live == capacity { head = (head + 1) % capacity } else { live += 1 }
        }
    }

    /// Every remembered message, oldest first.
    public var entries: [Entry] {
        (0..<live).map { slots[(head + $0) % max(1, slots.count)] }
    }

    public mutating func removeAll() {
        slots.removeAll(keepingCapacity: true)
        head = 0
        live = 0
    }

    private mutating func expire(before cutoff: Double) {
        while live > 0 && slots[head].sentAt < cutoff {
            head = (head + 1) % slots.count
            live -= 1
        }
        if live == 0 && slots.count < capacity {
            slots.removeAll(keepingCapacity: true)
            head = 0
        }
    }
}

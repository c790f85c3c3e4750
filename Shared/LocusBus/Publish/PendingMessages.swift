public import LocusService
/// Encoded messages a publisher holds back, oldest first: while the bus is away, and while
/// its queue towards the bus is full. Bounded by count; beyond it the oldest goes (the
/// caller counts the loss). Taking from the front is O(1), so a long backlog drains in
/// linear time however it is fed.
struct PendingMessages {
    private var items: [(topic: String, body: [UInt8])] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }
    var first: (topic: String, body: [UInt8])? { isEmpty ? nil : items[head] }

    /// Appends; returns true when the oldest message had to go to stay within `limit`.
    mutating func append(topic: String, body: [UInt8], limit: Int) -> Bool {
        var droppedOldest = false
        if count >= max(1, limit) {
            removeFirst()
            droppedOldest = true
        }
        items.append((topic, body))
        return droppedOldest
    }

    /// Puts `front` ahead of what waits, in its order; beyond `limit` the oldest go.
    /// Returns how many went.
    mutating func prepend(_ front: some Sequence<(topic: String, body: [UInt8])>, limit: Int) -> Int {
        items = Array(front) + items[head...]
        head = 0
        let excess = max(0, items.count - max(1, limit))
        items.removeFirst(excess)
        return excess
    }

    mutating func removeFirst() {
        guard !isEmpty else { return }
        items[head] = ("", [])
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}

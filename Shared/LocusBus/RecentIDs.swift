/// Remembers the last few thousand message ids so a receiver drops repeats
/// (last-value replays reach every matching subscriber; PROTOCOL.md says de-duplicate on `id`).
public struct RecentIDs: Sendable {
    private var ring: [String?]
    private var members: Set<String> = []
    private var next = 0

    public init(capacity: Int = 4096) {
        ring = Array(repeating: nil, count: max(1, capacity))
    }

    /// Returns true the first time an id is seen, false for a repeat.
    public mutating func insert(_ id: String) -> Bool {
        guard !members.contains(id) else { return false }
        if let evicted = ring[next] { members.remove(evicted) }
        ring[next] = id
        members.insert(id)
        next = (next + 1) % ring.count
        return true
    }
}

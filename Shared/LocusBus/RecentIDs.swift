/// Remembers the last few thousand message ids so a receiver drops repeats
/// (last-value replays reach every matching subscriber; PROTOCOL.md says de-duplicate on `id`).
///
/// Ids are kept as 64-bit fingerprints from the standard library's per-process seeded
/// hash: one hash per message instead of three string hashes and a string copy, and
/// nobody outside the process can craft an id that collides with another's. Two distinct
/// ids among the remembered few thousand collide with probability about n/2⁶⁴.
public struct RecentIDs: Sendable {
    private var ring: [Int]
    private var members: Set<Int>
    private var next = 0
    private var filled = 0

    public init(capacity: Int = 4096) {
        ring = Array(repeating: 0, count: max(1, capacity))
        members = Set(minimumCapacity: max(1, capacity))
    }

    /// Returns true the first time an id is seen, false for a repeat.
    public mutating func insert(_ id: String) -> Bool {
        let fingerprint = id.hashValue
        guard !members.contains(fingerprint) else { return false }
        if filled == ring.count {
            members.remove(ring[next])
        } else {
            filled += 1
        }
        ring[next] = fingerprint
        members.insert(fingerprint)
        next = next + 1 == ring.count ? 0 : next + 1
        return true
    }
}

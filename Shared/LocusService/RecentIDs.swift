/// Remembers the last few thousand message ids so a receiver drops repeats
/// (last-value replays reach every matching subscriber; docs/protocol.md says de-duplicate on `id`).
///
/// Ids are kept as 64-bit fingerprints from the standard library's per-process seeded
/// hash: one hash per message instead of three string hashes and a string copy, and
/// nobody outside the process can craft an id that collides with another's. Two distinct
/// ids among the remembered few thousand collide with probability about n/2⁶⁴.
/// The fingerprints are already uniformly spread, so they index an open-addressing table
/// directly instead of being hashed again by a `Set` on every lookup, insert and removal.
public struct RecentIDs: Sendable {
    /// Fingerprints in arrival order; the oldest is overwritten when full.
    private var ring: [UInt64]
    /// Linear-probing table of the fingerprints in `ring`; 0 marks an empty slot.
    private var table: [UInt64]
    private let mask: Int
    private var next = 0
    private var filled = 0

    public init(capacity: Int = 4096) {
        let capacity = max(1, capacity)
        ring = Array(repeating: 0, count: capacity)
        var slots = 4
        while slots < capacity * 2 { slots *= 2 }
        table = Array(repeating: 0, count: slots)
        mask = slots - 1
    }

    /// Returns true the first time an id is seen, false for a repeat.
    public mutating func insert(_ id: String) -> Bool {
        let hash = UInt64(bitPattern: Int64(id.hashValue))
        let fingerprint = hash == 0 ? 1 : hash
        var slot = Int(truncatingIfNeeded: fingerprint) & mask
        while table[slot] != 0 {
            if table[slot] == fingerprint { return false }
            slot = (slot + 1) & mask
        }
        if filled == ring.count {
            remove(ring[next])
            // The removal may have shifted entries into the free slot found above: look again.
            slot = Int(truncatingIfNeeded: fingerprint) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
        } else {
            filled += 1
        }
        table[slot] = fingerprint
        ring[next] = fingerprint
        next = next + 1 == ring.count ? 0 : next + 1
        return true
    }

    /// Deletes a fingerprint by shifting later entries of its probe run back (no tombstones),
    /// so lookups stay short however many ids pass through.
    private mutating func remove(_ fingerprint: UInt64) {
        var hole = Int(truncatingIfNeeded: fingerprint) & mask
        while table[hole] != fingerprint {
            if table[hole] == 0 { return }
            hole = (hole + 1) & mask
        }
        var probe = (hole + 1) & mask
        while table[probe] != 0 {
            let home = Int(truncatingIfNeeded: table[probe]) & mask
            // The entry may fill the hole when the hole lies on its probe path, home ... probe.
            if (probe - home) & mask >= (probe - hole) & mask {
                table[hole] = table[probe]
                hole = probe
            }
            probe = (probe + 1) & mask
        }
        table[hole] = 0
    }
}

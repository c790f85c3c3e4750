/// An open-addressing hash map from a grid cell key to the head of that cell's entry list.
///
/// `SpatialIndex` does one lookup per grid level for every query, so this avoids what a
/// `Dictionary<UInt64, [Int32]>` costs there (SipHash, a retained array per lookup): keys
/// are hashed by one multiplication and probed linearly in flat arrays. Cells are never
/// deleted one by one; emptied cells keep head −1 and are dropped on the next resize.
struct CellTable: Sendable {
    /// Stored keys plus one, so that 0 marks an empty bucket.
    private var keys: [UInt64]
    private var heads: [Int32]
    private var used = 0
    private var shift: UInt64

    init() {
        keys = [UInt64](repeating: 0, count: 64)
        heads = [Int32](repeating: -1, count: 64)
        shift = 64 - 6
    }

    @inline(__always)
    private func bucket(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The head entry of `key`'s list, or −1.
    @inline(__always)
    func head(_ key: UInt64) -> Int32 {
        let stored = key &+ 1
        let mask = keys.count - 1
        var index = bucket(key)
        return keys.withUnsafeBufferPointer { keys in
            while true {
                let found = keys[index]
                if found == stored { return heads[index] }
                if found == 0 { return -1 }
                index = (index + 1) & mask
            }
        }
    }

    /// Sets the head entry of `key`'s list, adding the cell if needed.
    mutating func setHead(_ key: UInt64, _ head: Int32) {
        if (used + 1) * 2 > keys.count { resize() }
        let stored = key &+ 1
        let mask = keys.count - 1
        var index = bucket(key)
        while keys[index] != 0 && keys[index] != stored { index = (index + 1) & mask }
        if keys[index] == 0 {
            keys[index] = stored
            used += 1
        }
        heads[index] = head
    }

    /// Rebuilds with room for the live cells (those with entries) at most a quarter full.
    private mutating func resize() {
        var live: [(UInt64, Int32)] = []
        for index in keys.indices where keys[index] != 0 && heads[index] >= 0 {
            live.append((keys[index] &- 1, heads[index]))
        }
        var capacity = 64
        while capacity < live.count * 4 { capacity *= 2 }
        keys = [UInt64](repeating: 0, count: capacity)
        heads = [Int32](repeating: -1, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        used = 0
        for (key, head) in live { setHead(key, head) }
    }
}

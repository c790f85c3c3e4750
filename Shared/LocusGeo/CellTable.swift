/// An open-addressing hash table from a grid cell key to the boxes filed in that cell.
///
/// `SpatialIndex` does one lookup per grid level for every query, and at fleet scale those
/// lookups are cache misses, so the layout is chosen for that: each bucket holds the key
/// and the cell's entry array side by side (one miss to find the cell, one to read its
/// entries, which are contiguous and sorted by southern edge). Keys hash by one
/// multiplication and probe linearly, with no SipHash or generic dictionary machinery.
/// Cells are never deleted one by one; cells left empty are dropped when the table grows.
@usableFromInline
struct CellTable<ID: Hashable & Sendable>: Sendable {
    @usableFromInline
    struct Bucket: Sendable {
        /// The cell key plus one; 0 marks an empty bucket.
        @usableFromInline var storedKey: UInt64 = 0
        @usableFromInline var entries: [CellEntry<ID>] = []

        @usableFromInline init() {}
    }

    @usableFromInline var buckets = [Bucket](repeating: Bucket(), count: 64)
    private var used = 0
    @usableFromInline var shift: UInt64 = 64 - 6

    init() {}

    @inlinable @inline(__always)
    func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The bucket holding `key`, or nil.
    @inlinable @inline(__always)
    func find(_ key: UInt64) -> Int? {
        let stored = key &+ 1
        let mask = buckets.count - 1
        var index = home(key)
        return buckets.withUnsafeBufferPointer { buckets in
            while true {
                let found = buckets[index].storedKey
                if found == stored { return index }
                if found == 0 { return nil }
                index = (index + 1) & mask
            }
        }
    }

    /// Calls `body` with the entries of cell `key` (not at all when it has none).
    @inlinable @inline(__always)
    func withEntries(_ key: UInt64, _ body: (UnsafeBufferPointer<CellEntry<ID>>) -> Void) {
        guard let index = find(key) else { return }
        buckets.withUnsafeBufferPointer { buckets in
            buckets[index].entries.withUnsafeBufferPointer(body)
        }
    }

    /// Files `entry` in cell `key`, keeping the cell's entries sorted by `box.minLat` so a
    /// query can stop at the first box that starts north of its point.
    mutating func insert(_ entry: CellEntry<ID>, into key: UInt64) {
        if let index = find(key) {
            let position = buckets[index].entries.firstIndex { $0.box.minLat > entry.box.minLat } ?? buckets[index].entries.count
            buckets[index].entries.insert(entry, at: position)
            return
        }
        if (used + 1) * 2 > buckets.count { grow() }
        let mask = buckets.count - 1
        var index = home(key)
        while buckets[index].storedKey != 0 { index = (index + 1) & mask }
        buckets[index].storedKey = key &+ 1
        buckets[index].entries = [entry]
        used += 1
    }

    /// Removes the entry for `id` from cell `key`, if it is there.
    mutating func remove(_ id: ID, from key: UInt64) {
        guard let index = find(key), let position = buckets[index].entries.firstIndex(where: { $0.id == id }) else { return }
        buckets[index].entries.remove(at: position)
    }

    /// Rehashes the non-empty cells into a table at most a quarter full.
    private mutating func grow() {
        let live = buckets.filter { $0.storedKey != 0 && !$0.entries.isEmpty }
        var capacity = 64
        while capacity < live.count * 4 { capacity *= 2 }
        buckets = [Bucket](repeating: Bucket(), count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        used = live.count
        let mask = capacity - 1
        for bucket in live {
            var index = home(bucket.storedKey &- 1)
            while buckets[index].storedKey != 0 { index = (index + 1) & mask }
            buckets[index] = bucket
        }
    }
}

/// One box filed in one cell, with its id, so a query reads nothing else (24 bytes for an
/// integer id: the box is kept in single precision, rounded outward).
@usableFromInline
struct CellEntry<ID: Hashable & Sendable>: Sendable {
    @usableFromInline var box: CompactBox
    @usableFromInline var id: ID

    init(box: BoundingBox, id: ID) {
        self.box = CompactBox(box)
        self.id = id
    }
}

/// One integer per topic, for the per-topic `tseq` counters that every message on the bus
/// passes through on its publisher and on each receiver (a fleet's ten thousand topics).
///
/// Topics are kept as 64-bit fingerprints from the standard library's per-process seeded
/// hash, as `RecentIDs` keeps ids: a message costs one hash of its topic's bytes (as received
/// or as a `String`, no key built) and one probe in a flat table indexed by the fingerprint
/// itself, instead of a `Dictionary`'s second hash and a string comparison through a
/// pointer. Nobody outside the process can craft topics that collide; two distinct topics
/// among n share a fingerprint with probability about n²/2⁶⁵ (for a collision to matter,
/// both would also have to come from one publisher).
public struct TopicCounters: Sendable {
    /// Linear-probing table of (fingerprint, value); fingerprint 0 marks an empty slot.
    private var slots: [(fingerprint: UInt64, value: Int)]
    private var mask: Int
    public private(set) var count = 0

    public init() {
        slots = Array(repeating: (0, 0), count: 16)
        mask = 15
    }

    /// The fingerprint of a topic as received.
    @inlinable
    public static func fingerprint(_ topic: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(bytes: topic)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        return hash == 0 ? 1 : hash
    }

    /// The fingerprint of a topic as a `String` (equal to that of its UTF-8 bytes).
    @inlinable
    public static func fingerprint(_ topic: String) -> UInt64 {
        var topic = topic
        return topic.withUTF8 { fingerprint(UnsafeRawBufferPointer($0)) }
    }

    /// Stores `value` for the topic; returns the value it had, nil for a topic not seen before.
    public mutating func update(_ value: Int, for fingerprint: UInt64) -> Int? {
        let slot = slot(of: fingerprint)
        guard slots[slot].fingerprint != 0 else {
            insert(fingerprint, value, at: slot)
            return nil
        }
        let previous = slots[slot].value
        slots[slot].value = value
        return previous
    }

    /// Adds one to the topic's value (0 for a topic not seen before); returns the new value.
    public mutating func increment(_ fingerprint: UInt64) -> Int {
        let slot = slot(of: fingerprint)
        guard slots[slot].fingerprint != 0 else {
            insert(fingerprint, 1, at: slot)
            return 1
        }
        slots[slot].value += 1
        return slots[slot].value
    }

    /// Where `fingerprint` is, or the empty slot that ends its probe run.
    private func slot(of fingerprint: UInt64) -> Int {
        var slot = Int(truncatingIfNeeded: fingerprint) & mask
        while slots[slot].fingerprint != 0 && slots[slot].fingerprint != fingerprint { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func insert(_ fingerprint: UInt64, _ value: Int, at slot: Int) {
        slots[slot] = (fingerprint, value)
        count += 1
        if count * 2 > slots.count { grow() }
    }

    /// Doubles the table, keeping it at most half full so probe runs stay short.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: (0, 0), count: old.count * 2)
        mask = slots.count - 1
        for entry in old where entry.fingerprint != 0 { slots[slot(of: entry.fingerprint)] = entry }
    }
}

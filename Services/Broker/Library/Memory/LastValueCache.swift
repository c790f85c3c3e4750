import LocusProtocol
/// The newest body of each cached topic, so a subscriber that joins late gets the
/// current state at once instead of waiting for the next update (the ZeroMQ guide's
/// last-value cache). Only state-like topics are cached: positions, authorization,
/// region replies and health — never events, which must not be replayed as new.
public struct LastValueCache: Sendable {
    public static let defaultPrefixes = [Topic.locationPrefix, Topic.authStatusPrefix, Topic.regionStatePrefix, Topic.healthPrefix]

    private let prefixes: TopicPrefixes
    private var entries: [TopicKey: [UInt8]] = [:]
    /// The topic being looked up, in storage reused across calls: a fleet's positions pass
    /// here once per message, so the lookup allocates nothing and an update overwrites the
    /// previous body in place.
    private var scratchKey = TopicKey(bytes: [])
    /// Bound on distinct topics so a peer inventing topics cannot exhaust memory.
    public let capacity: Int
    public private(set) var refused = 0

    public init(prefixes: [String] = LastValueCache.defaultPrefixes, capacity: Int = 1_000_000) {
        self.prefixes = TopicPrefixes(prefixes)
        self.capacity = capacity
    }

    public var count: Int { entries.count }

    public func isCached(topic: UnsafeRawBufferPointer) -> Bool {
        return prefixes.match(topic)
    }

    /// Keeps `body` as the last value of `topic` when the topic is cacheable; returns whether it did.
    @discardableResult
    public mutating func store(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) -> Bool {
        guard isCached(topic: topic) else { return false }
        scratchKey.set(topic)
        if let index = entries.index(forKey: scratchKey) {
            entries.values[index].removeAll(keepingCapacity: true)
            entries.values[index].append(contentsOf: body)
            return true
        }
        if entries.count >= capacity {
            refused += 1
            return false
        }
        entries[TopicKey(topic)] = Array(body)
        return true
    }

    public mutating func store(topic: [UInt8], body: [UInt8]) {
        topic.withUnsafeBytes { t in body.withUnsafeBytes { b in _ = store(topic: t, body: b) } }
    }

    /// Every cached (topic, body) whose topic starts with `prefix`, in topic order so replays are deterministic.
    public func matching(prefix: [UInt8]) -> [(topic: [UInt8], body: [UInt8])] {
        entries.filter { $0.key.bytes.starts(with: prefix) }
            .sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
            .map { (topic: $0.key.bytes, body: $0.value) }
    }
}

/// A topic's bytes as a dictionary key. Up to 32 bytes (every topic of a fleet's
/// positions) sit inline in the key, so a lookup compares keys in the table's own storage
/// instead of following a pointer per probe (those cache misses were two fifths of the
/// bus's thread under a fleet); longer topics keep their bytes in an array. Hashed in one
/// pass, not byte by byte.
struct TopicKey: Hashable, Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count = 0
    private var spill: [UInt8] = []

    static let inlineCapacity = 32

    init(_ topic: UnsafeRawBufferPointer) {
        set(topic)
    }

    init(bytes: [UInt8]) {
        bytes.withUnsafeBytes { set($0) }
    }

    /// Replaces the key's bytes, reusing its storage.
    mutating func set(_ topic: UnsafeRawBufferPointer) {
        count = topic.count
        words = (0, 0, 0, 0)
        spill.removeAll(keepingCapacity: true)
        if topic.count <= Self.inlineCapacity {
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: topic) }
        } else {
            spill.append(contentsOf: topic)
        }
    }

    var bytes: [UInt8] {
        count <= Self.inlineCapacity ? withUnsafeBytes(of: words) { Array($0.prefix(count)) } : spill
    }

    func hash(into hasher: inout Hasher) {
        if count <= Self.inlineCapacity {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
            hasher.combine(count)
        } else {
            spill.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    static func == (a: TopicKey, b: TopicKey) -> Bool {
        a.count == b.count && a.words == b.words && (a.count <= inlineCapacity || a.spill == b.spill)
    }
}

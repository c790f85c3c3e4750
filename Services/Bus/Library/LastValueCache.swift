/// The newest body of each cached topic, so a subscriber that joins late gets the
/// current state at once instead of waiting for the next update (the ZeroMQ guide's
/// last-value cache). Only state-like topics are cached: positions, authorization,
/// region replies and health — never events, which must not be replayed as new.
public struct LastValueCache: Sendable {
    public static let defaultPrefixes = ["location.", "auth.status.", "region.state.", "health."]

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
        scratchKey.bytes.removeAll(keepingCapacity: true)
        scratchKey.bytes.append(contentsOf: topic)
        if let index = entries.index(forKey: scratchKey) {
            entries.values[index].removeAll(keepingCapacity: true)
            entries.values[index].append(contentsOf: body)
            return true
        }
        if entries.count >= capacity {
            refused += 1
            return false
        }
        entries[TopicKey(bytes: Array(topic))] = Array(body)
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

/// A topic's bytes as a dictionary key, hashed in one pass over the bytes: an array of
/// bytes as a key hashes element by element, which was a sixth of the bus's CPU under a
/// fleet's positions.
struct TopicKey: Hashable, Sendable {
    var bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (a: TopicKey, b: TopicKey) -> Bool { a.bytes == b.bytes }
}

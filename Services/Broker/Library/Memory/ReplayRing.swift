import LocusProtocol
/// The bus's short memory of event messages, so a subscriber that was down (killed,
/// restarting) can ask for what it missed (`bus.replay`, docs/protocol.md): ZeroMQ drops
/// what is published while a subscriber is absent, and events — unlike the state topics
/// of the last-value cache — are not repeated later.
///
/// A bounded ring in memory: at most `capacity` messages; one older than `maxAgeSeconds` is
/// never replayed (its slot is reused as the ring wraps).
/// Only topics starting with one of `prefixes` are copied, so the forwarding hot path
/// pays one prefix test for every other message. In memory the ring dies with the bus
/// process; with `locus-bus --state DIR` the broker mirrors it in `ReplayRingLog` and
/// reloads it on start.
public struct ReplayRing: Sendable {
    public static let defaultPrefixes = [Topic.regionEventPrefix, Topic.visitPrefix, Topic.notifyPrefix, Topic.locationSignificantPrefix]
    public static let defaultCapacity = 100_000
    public static let defaultMaxAgeSeconds = 3_600.0

    /// One remembered message with the time the bus received it (the bus's clock).
    public struct Entry: Sendable, Equatable {
        public var receivedAt: Double
        public var topic: [UInt8]
        public var body: [UInt8]

        public init(receivedAt: Double, topic: [UInt8], body: [UInt8]) {
            self.receivedAt = receivedAt
            self.topic = topic
            self.body = body
        }
    }

    private let prefixes: TopicPrefixes
    public let capacity: Int
    public let maxAgeSeconds: Double
    private var slots: [Entry] = []
    /// Index of the oldest entry in `slots` once the ring has wrapped.
    private var head = 0
    /// Messages pushed out by the capacity bound (the age bound is normal expiry).
    public private(set) var overwritten = 0

    public init(prefixes: [String] = ReplayRing.defaultPrefixes, capacity: Int = ReplayRing.defaultCapacity,
                maxAgeSeconds: Double = ReplayRing.defaultMaxAgeSeconds) {
        self.prefixes = TopicPrefixes(prefixes)
        self.capacity = max(0, capacity)
        self.maxAgeSeconds = maxAgeSeconds
    }

    public var count: Int { slots.count }

    /// Whether `topic` is one the ring keeps.
    public func keeps(topic: UnsafeRawBufferPointer) -> Bool {
        guard capacity > 0 else { return false }
        return prefixes.match(topic)
    }

    /// Remembers the message when its topic is kept; returns whether it did. `now` is only
    /// read for kept topics, so callers can pass a closure that reads the clock lazily.
    @discardableResult
    public mutating func store(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, now: () -> Double) -> Bool {
        guard keeps(topic: topic) else { return false }
        insert(Entry(receivedAt: now(), topic: Array(topic), body: Array(body)))
        return true
    }

    /// Adds an entry as the newest without the topic test (reloading a saved ring).
    public mutating func insert(_ entry: Entry) {
        guard capacity > 0 else { return }
        if slots.count < capacity {
            slots.append(entry)
        } else {
            slots[head] = entry
            head = (head + 1) % capacity
            overwritten += 1
        }
    }

    /// The most recently stored entry.
    public var newest: Entry? {
        guard !slots.isEmpty else { return nil }
        return slots[(head + slots.count - 1) % slots.count]
    }

    /// Every entry, oldest first.
    public var entries: [Entry] {
        (0..<slots.count).map { slots[(head + $0) % slots.count] }
    }

    public mutating func store(topic: String, body: [UInt8], now: Double) {
        let topicBytes = Array(topic.utf8)
        topicBytes.withUnsafeBytes { t in body.withUnsafeBytes { b in _ = store(topic: t, body: b, now: { now }) } }
    }

    /// Every remembered message whose topic starts with one of `prefixes`, received after
    /// `since` (nil: any time) and no older than the age bound at `now`, oldest first.
    public func matching(prefixes wanted: [String], since: Double?, now: Double) -> [Entry] {
        let wantedBytes = wanted.map { Array($0.utf8) }
        let expired = now - maxAgeSeconds
        var result: [Entry] = []
        for offset in 0..<slots.count {
            let entry = slots[(head + offset) % slots.count]
            if entry.receivedAt < expired { continue }
            if let since, entry.receivedAt <= since { continue }
            if wantedBytes.contains(where: { entry.topic.starts(with: $0) }) { result.append(entry) }
        }
        return result
    }
}

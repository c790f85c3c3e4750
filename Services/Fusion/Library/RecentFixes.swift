/// The last few fixes of one device as (source, t, lat, lon), so the same fix arriving twice
/// under two message ids is dropped. A ring of fixed size, overwritten in place: remembering
/// a fix allocates nothing once the ring is full.
public struct RecentFixes: Sendable {
    public struct Key: Sendable, Equatable {
        public var source: String
        public var t: Double
        public var lat: Double
        public var lon: Double

        public init(source: String, t: Double, lat: Double, lon: Double) {
            self.source = source
            self.t = t
            self.lat = lat
            self.lon = lon
        }
    }

    public let capacity: Int
    private var keys: [Key] = []
    private var next = 0

    public init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// Whether `key` is among the remembered fixes; remembers it (forgetting the oldest) when not.
    public mutating func isRepeat(_ key: Key) -> Bool {
        // Numbers first: they differ for nearly every other fix, the source rarely does.
        if keys.contains(where: { $0.t == key.t && $0.lat == key.lat && $0.lon == key.lon && $0.source == key.source }) {
            return true
        }
        if keys.count < capacity {
            if keys.isEmpty { keys.reserveCapacity(capacity) }
            keys.append(key)
        } else {
            keys[next] = key
            next = next + 1 == capacity ? 0 : next + 1
        }
        return false
    }
}

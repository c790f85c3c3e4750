import LocusProtocol
/// Splits devices between N instances of a service so a fleet scales out with no device
/// handled twice and none missed: every instance sees the whole stream and keeps the
/// devices that rendezvous hashing assigns to it. Rendezvous (highest random weight)
/// hashing moves only about 1/N of the devices when N changes.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && index >= 0 && index < count, "shard index must be in 0..<count")
        self.index = index
        self.count = count
    }

    /// Parses `K/N` (e.g. `0/3`).
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else { return nil }
        self.init(index: k, count: n)
    }

    public static let whole = Shard(index: 0, count: 1)

    public var description: String { "\(index)/\(count)" }

    /// Whether this instance owns `device`.
    public func owns(device: String) -> Bool {
        count == 1 || Self.owner(of: device, among: count) == index
    }

    /// The shard that owns `device` among `count` shards; the same in every process and version.
    public static func owner(of device: String, among count: Int) -> Int {
        owner(ofHash: fnv1a(device.utf8), among: count)
    }

    private static func owner(ofHash hash: UInt64, among count: Int) -> Int {
        var best = 0
        var bestWeight: UInt64 = 0
        for shard in 0..<count {
            let weight = mix(hash ^ (UInt64(shard) &* 0x9E37_79B9_7F4A_7C15))
            if shard == 0 || weight > bestWeight {
                best = shard
                bestWeight = weight
            }
        }
        return best
    }

    /// Device-scoped topics end in the device id: `location.fused.<device>`, `motion.<device>`, …
    static let devicePrefixes = [Topic.locationRawPrefix, Topic.locationFusedPrefix, Topic.locationApproxPrefix, Topic.locationSignificantPrefix,
                                 Topic.motionPrefix, Topic.controlPrefix, Topic.visitPrefix]

    /// The device a topic is about, or nil for topics every shard needs (commands, authorization).
    public static func device(ofTopic topic: String) -> String? {
        for prefix in devicePrefixes where topic.hasPrefix(prefix) {
            let device = topic.dropFirst(prefix.count)
            return device.isEmpty ? nil : String(device)
        }
        return nil
    }

    /// Whether a message on `topic` is for this instance.
    public func accepts(topic: String) -> Bool {
        guard count > 1, let device = Self.device(ofTopic: topic) else { return true }
        return owns(device: device)
    }

    /// Whether a message whose topic has these UTF-8 bytes is for this instance: the same
    /// answer as `accepts(topic:)`, read from the received frame so that a sharded service
    /// need not build a String, or decode the body, for another shard's message.
    public func accepts(topicBytes topic: UnsafeRawBufferPointer) -> Bool {
        guard count > 1 else { return true }
        // Outside ASCII a String compares by characters, not bytes: let the String path decide.
        guard !topic.contains(where: { $0 >= 0x80 }) else { return accepts(topic: String(decoding: topic, as: UTF8.self)) }
        for prefix in Self.devicePrefixBytes where topic.starts(with: prefix) {
            guard topic.count > prefix.count else { return true }
            return Self.owner(ofHash: Self.fnv1a(topic[prefix.count...]), among: count) == index
        }
        return true
    }

    private static let devicePrefixBytes = devicePrefixes.map { Array($0.utf8) }

    private static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// SplitMix64's finaliser: spreads the bits so nearby inputs get unrelated weights.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

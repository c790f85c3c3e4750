public import LocusService

/// The server's partition function, computed here too: NATS subject mapping
/// `{{partition(N,1)}}` puts a device's subject in partition FNV-1a-32(device token) mod N.
/// Subjects the server partitions arrive already split; for device-scoped subjects it
/// does not (`control.*`, `motion.*`) an instance keeps the same devices by this hash.
public enum NATSPartition {
    public static func of(deviceToken token: Substring.UTF8View, count: Int) -> Int {
        var hash: UInt32 = 0x811C_9DC5
        for byte in token {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return Int(hash % UInt32(count))
    }

    /// The partition of a device id among `count` (its subject token is the escaped id).
    public static func of(device: String, count: Int) -> Int {
        let token = SubjectMapping.escape(device.utf8)
        return of(deviceToken: Substring(token).utf8, count: count)
    }

    /// Whether a message on `subject` belongs to `partition`: true for subjects that name no device.
    public static func accepts(subject: String, partition: Shard) -> Bool {
        guard partition.count > 1, let topic = SubjectMapping.topic(forSubject: subject),
              Shard.device(ofTopic: topic) != nil,
              let dot = subject.utf8.lastIndex(of: UInt8(ascii: ".")) else { return true }
        let token = Substring(subject).utf8[subject.utf8.index(after: dot)...]
        return of(deviceToken: token, count: partition.count) == partition.index
    }
}

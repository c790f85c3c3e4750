/// A set of topic prefixes matched against raw topic bytes, as ZeroMQ subscriptions
/// match: the bus's hot path checks each forwarded message against its cache and replay
/// prefixes without building a String.
public struct TopicPrefixes: Sendable, Equatable {
    private let prefixes: [[UInt8]]

    public init(_ prefixes: [String]) {
        self.prefixes = prefixes.map { Array($0.utf8) }
    }

    public var isEmpty: Bool { prefixes.isEmpty }

    /// Whether `topic` starts with any of the prefixes.
    public func match(_ topic: UnsafeRawBufferPointer) -> Bool {
        for prefix in prefixes where topic.count >= prefix.count {
            var matches = true
            for index in 0..<prefix.count where topic[index] != prefix[index] {
                matches = false
                break
            }
            if matches { return true }
        }
        return false
    }
}

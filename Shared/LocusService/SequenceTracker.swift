/// Follows each publisher's per-topic counter (`tseq`) so a receiver sees what the bus dropped
/// (high-water marks, slow joiners): a gap is counted, never hidden, and a topic this receiver
/// did not subscribe to is never mistaken for a loss.
///
/// Counters are kept per publisher, then per topic. Streams come in runs from one publisher
/// (a fusion instance sends every fused fix), so that publisher's table is kept aside and a
/// message costs one string comparison and one probe by topic. Topics are kept as
/// fingerprints of their bytes (`TopicCounters`): a receiver looks up the topic frame as it
/// arrived, with one hash and no `String` or `Dictionary` lookup per message.
public struct SequenceTracker: Sendable {
    private var tables: [String: TopicCounters] = [:]
    /// The publisher seen most recently and its table; newer than its entry in `tables`.
    private var currentSource: String?
    private var current = TopicCounters()
    public private(set) var missing = 0
    /// Messages whose counter went back: a publisher restarted, or the bus replayed one.
    public private(set) var restarts = 0

    public init() {}

    /// Records one message; returns how many messages on `topic` from `src` went missing
    /// before it. A message without `tseq` is not counted: its loss cannot be known.
    @discardableResult
    public mutating func observe(src: String, topic: String, tseq: Int?) -> Int {
        guard tseq != nil else { return 0 }
        return observe(src: src, topicFingerprint: TopicCounters.fingerprint(topic), tseq: tseq)
    }

    /// The same, for a topic given by `TopicCounters.fingerprint` (of the frame as received).
    @discardableResult
    public mutating func observe(src: String, topicFingerprint: UInt64, tseq: Int?) -> Int {
        guard let tseq else { return 0 }
        if currentSource != src {
            if let currentSource { tables[currentSource] = current }
            current = tables.removeValue(forKey: src) ?? TopicCounters()
            currentSource = src
        }
        guard let previous = current.update(tseq, for: topicFingerprint) else { return 0 }
        if tseq <= previous {
            restarts += 1
            return 0
        }
        let gap = tseq - previous - 1
        missing += gap
        return gap
    }
}

/// Follows each publisher's per-topic counter (`tseq`) so a receiver sees what the bus dropped
/// (high-water marks, slow joiners): a gap is counted, never hidden, and a topic this receiver
/// did not subscribe to is never mistaken for a loss.
///
/// Counters are kept per publisher, then per topic. Streams come in runs from one publisher
/// (a fusion instance sends every fused fix), so that publisher's table is kept aside and a
/// message costs one string comparison and one lookup by topic.
public struct SequenceTracker: Sendable {
    private var tables: [String: [String: Int]] = [:]
    /// The publisher seen most recently and its table; newer than its entry in `tables`.
    private var currentSource: String?
    private var current: [String: Int] = [:]
    public private(set) var missing = 0
    /// Messages whose counter went back: a publisher restarted, or the bus replayed one.
    public private(set) var restarts = 0

    public init() {}

    /// Records one message; returns how many messages on `topic` from `src` went missing
    /// before it. A message without `tseq` is not counted: its loss cannot be known.
    @discardableResult
    public mutating func observe(src: String, topic: String, tseq: Int?) -> Int {
        guard let tseq else { return 0 }
        if currentSource != src {
            if let currentSource { tables[currentSource] = current }
            current = tables.removeValue(forKey: src) ?? [:]
            currentSource = src
        }
        guard let previous = current.updateValue(tseq, forKey: topic) else { return 0 }
        if tseq <= previous {
            restarts += 1
            return 0
        }
        let gap = tseq - previous - 1
        missing += gap
        return gap
    }
}

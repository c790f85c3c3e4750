/// Follows each publisher's `seq` so a receiver sees what a plain PUB socket drops
/// silently (high-water marks, slow joiners): a gap is counted, never hidden.
///
/// Streams come in runs from one publisher (a fusion instance sends every fused fix), so
/// the last publisher and its counter are kept aside: a run costs one string comparison
/// per message, and the dictionary is touched only when the publisher changes.
public struct SequenceTracker: Sendable {
    private var last: [String: Int] = [:]
    /// The publisher seen most recently and its newest `seq`; newer than its dictionary entry.
    private var current: (src: String, seq: Int)?
    public private(set) var missing = 0
    public private(set) var restarts = 0

    public init() {}

    /// Records one message; returns how many messages from `src` went missing before it.
    @discardableResult
    public mutating func observe(src: String, seq: Int?) -> Int {
        guard let seq else { return 0 }
        let previous: Int?
        if let current, current.src == src {
            previous = current.seq
            self.current = (src, seq)
        } else {
            if let current { last[current.src] = current.seq }
            previous = last[src]
            current = (src, seq)
        }
        guard let previous else { return 0 }
        if seq <= previous {
            // A publisher restarted (seq begins again) or a replay arrived: not a loss.
            restarts += 1
            return 0
        }
        let gap = seq - previous - 1
        missing += gap
        return gap
    }
}

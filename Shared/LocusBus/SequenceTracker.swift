/// Follows each publisher's `seq` so a receiver sees what a plain PUB socket drops
/// silently (high-water marks, slow joiners): a gap is counted, never hidden.
public struct SequenceTracker: Sendable {
    private var last: [String: Int] = [:]
    public private(set) var missing = 0
    public private(set) var restarts = 0

    public init() {}

    /// Records one message; returns how many messages from `src` went missing before it.
    @discardableResult
    public mutating func observe(src: String, seq: Int?) -> Int {
        guard let seq else { return 0 }
        defer { last[src] = seq }
        guard let previous = last[src] else { return 0 }
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

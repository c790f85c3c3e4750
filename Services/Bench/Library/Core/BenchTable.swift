import Foundation

/// What a benchmark row must reach, and in which direction "better" lies, so one table
/// can say "met" for throughput, latency and memory alike.
public enum BenchGoal: Sendable, Equatable {
    /// Ours divided by the peer's figure is at least this (throughput beside a peer).
    case ratioAtLeast(Double)
    /// Ours divided by the peer's figure is at most this (errors, where lower is better).
    case ratioAtMost(Double)
    /// Our own figure is at least this, in the row's unit.
    case atLeast(Double)
    /// Our own figure is at most this, in the row's unit.
    case atMost(Double)
    /// Shown for context only.
    case none

    /// The goal as the table prints it, e.g. `≥ 5×` or `≤ 20 MB`.
    public func text(unit: String) -> String {
        switch self {
        case .ratioAtLeast(let value): return "≥ \(BenchRow.format(value))×"
        case .ratioAtMost(let value): return "≤ \(BenchRow.format(value))×"
        case .atLeast(let value): return "≥ \(BenchRow.format(value)) \(unit)"
        case .atMost(let value): return "≤ \(BenchRow.format(value)) \(unit)"
        case .none: return "—"
        }
    }
}

/// One line of `locus bench all`: our figure beside the peer measured in the same run.
public struct BenchRow: Sendable, Equatable {
    /// What was measured, e.g. `codec decode`.
    public var name: String
    /// Our figure, in `unit`.
    public var ours: Double
    /// The peer's figure in the same unit, when a peer ran.
    public var peer: Double?
    /// Who the peer is, e.g. `Foundation JSONDecoder`; also says why a peer is missing.
    public var peerName: String
    /// Unit of `ours` and `peer`, e.g. `msg/s`, `ms`, `MB`.
    public var unit: String
    public var goal: BenchGoal

    public init(name: String, ours: Double, peer: Double? = nil, peerName: String, unit: String, goal: BenchGoal) {
        self.name = name
        self.ours = ours
        self.peer = peer
        self.peerName = peerName
        self.unit = unit
        self.goal = goal
    }

    /// Ours divided by the peer's figure; nil without a usable peer.
    public var ratio: Double? {
        guard let peer, peer != 0, peer.isFinite, ours.isFinite else { return nil }
        return ours / peer
    }

    /// Whether the goal is met; nil when it cannot be judged (no goal, or a ratio goal without a peer).
    public var met: Bool? {
        guard ours.isFinite else { return false }
        switch goal {
        case .ratioAtLeast(let value): return ratio.map { $0 >= value }
        case .ratioAtMost(let value): return ratio.map { $0 <= value }
        case .atLeast(let value): return ours >= value
        case .atMost(let value): return ours <= value
        case .none: return nil
        }
    }

    /// How far the row is from its goal: above 1 means missed by that factor, below 1
    /// means met with room. Lets `bench all` name the worst row to profile.
    public var shortfall: Double? {
        func factor(_ value: Double?, _ target: Double, higherIsBetter: Bool) -> Double? {
            guard let value, target > 0 else { return nil }
            if higherIsBetter { return value > 0 ? target / value : .infinity }
            return max(0, value) / target
        }
        switch goal {
        case .ratioAtLeast(let target): return factor(ratio, target, higherIsBetter: true)
        case .ratioAtMost(let target): return factor(ratio, target, higherIsBetter: false)
        case .atLeast(let target): return factor(ours, target, higherIsBetter: true)
        case .atMost(let target): return factor(ours, target, higherIsBetter: false)
        case .none: return nil
        }
    }

    /// Three significant figures, with k/M for large numbers, so rows of very different
    /// magnitudes stay readable side by side.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        let magnitude = abs(value)
        if magnitude >= 1e6 { return trimmed(value / 1e6) + " M" }
        if magnitude >= 1e4 { return trimmed(value / 1e3) + " k" }
        return trimmed(value)
    }

    private static func trimmed(_ value: Double) -> String {
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        return String(format: "%.\(decimals)f", value)
    }
}

/// Renders rows as the one markdown table `locus bench all` prints.
public enum BenchTable {
    public static let header = """
        | benchmark | Locus | peer | peer figure | ratio | goal | met |
        |---|---:|---|---:|---:|---|---|
        """

    public static func render(_ rows: [BenchRow]) -> String {
        ([header] + rows.map(line)).joined(separator: "\n")
    }

    public static func line(_ row: BenchRow) -> String {
        let ours = BenchRow.format(row.ours) + " " + row.unit
        let peer = row.peer.map { BenchRow.format($0) + " " + row.unit } ?? "—"
        let ratio = row.ratio.map { BenchRow.format($0) + "×" } ?? "—"
        let met = row.met.map { $0 ? "yes" : "**no**" } ?? "—"
        let cells = [row.name, ours, row.peerName, peer, ratio, row.goal.text(unit: row.unit), met]
        return "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
    }

    /// The row furthest from its goal (largest `shortfall`), the one to profile first.
    public static func worst(_ rows: [BenchRow]) -> BenchRow? {
        rows.filter { $0.shortfall != nil }.max { ($0.shortfall ?? 0) < ($1.shortfall ?? 0) }
    }
}

/// Where each benchmark leaves its table rows, so `bench all` can gather them while every
/// bench keeps printing its own details when run alone.
public final class BenchRecorder: @unchecked Sendable {
    public static let shared = BenchRecorder()
    private let lock = NSLock()
    private var rows: [BenchRow] = []

    public init() {}

    public func record(_ row: BenchRow) {
        lock.lock()
        rows.append(row)
        lock.unlock()
    }

    /// Returns the rows recorded so far and forgets them.
    public func take() -> [BenchRow] {
        lock.lock()
        defer { rows = []; lock.unlock() }
        return rows
    }
}

/// Named monotonic counters reported in `health.<service>` (received, sent, rejected, dropped, …).
public struct Counters: Sendable, Equatable {
    public private(set) var values: [String: Int] = [:]

    public init() {}

    public mutating func add(_ name: String, _ amount: Int = 1) {
        values[name, default: 0] += amount
    }

    public subscript(name: String) -> Int { values[name] ?? 0 }

    public mutating func merge(_ other: [String: Int]) {
        for (key, value) in other { values[key] = value }
    }
}

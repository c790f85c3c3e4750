/// How far a source's own accuracy claim is believed. Network positions (Wi-Fi, cell, IP)
/// report radii that are too small for the errors they make, so their `hacc` is scaled up
/// before it becomes measurement noise; satellite fixes are taken at their word.
public struct SourceTrust: Sendable, Equatable {
    /// Multiplier applied to a source's `hacc`, ≥ 1 for sources known to be optimistic.
    public var haccScale: [String: Double]
    /// Scale for sources not in the table (plugins' own words).
    public var defaultScale: Double
    /// Smallest radius believed from any source, metres: no fix is better than this.
    public var minimumHaccMeters: Double

    public init(haccScale: [String: Double] = SourceTrust.standardScales, defaultScale: Double = 1.5, minimumHaccMeters: Double = 1) {
        self.haccScale = haccScale
        self.defaultScale = defaultScale
        self.minimumHaccMeters = minimumHaccMeters
    }

    public static let standardScales: [String: Double] = [
        "gps": 1, "gnss": 1, "sim": 1, "manual": 1, "fused": 1, "cache": 1,
        "dr": 1.2, "wifi": 1.6, "cell": 2, "ip": 3,
    ]

    /// How much a source's accuracy claims are inflated (also applied to its speed accuracy).
    public func scale(for source: String) -> Double {
        haccScale[source] ?? defaultScale
    }

    /// The radius (68 %) this filter should assume for a fix from `source` that claims `hacc`.
    public func effectiveHacc(_ hacc: Double, source: String) -> Double {
        max(minimumHaccMeters, hacc * scale(for: source))
    }
}

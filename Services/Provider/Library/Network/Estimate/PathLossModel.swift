import Foundation

/// Log-distance path loss: the signal heard at `d` metres is `referenceDBm − 10·n·log10(d)`,
/// plus shadowing (walls, bodies, cars) that is normal in dB with `shadowingSigmaDB`. Read
/// backwards it turns a signal level into a distance, uncertain by the factor the
/// shadowing implies. The estimate uses typical values for Wi-Fi (`wifiTypical`); the
/// simulated city draws its own per access point, so the estimate never knows the truth.
public struct PathLossModel: Sendable, Equatable {
    /// Signal at 1 m, dBm.
    public var referenceDBm: Double
    /// Path-loss exponent: 2 in free space, about 2.5–3.5 in streets and through walls.
    public var exponent: Double
    /// Standard deviation of the shadowing, dB.
    public var shadowingSigmaDB: Double

    public init(referenceDBm: Double, exponent: Double, shadowingSigmaDB: Double) {
        self.referenceDBm = referenceDBm
        self.exponent = exponent
        self.shadowingSigmaDB = shadowingSigmaDB
    }

    /// Typical Wi-Fi heard from a street through a building's walls: −40 dBm at 1 m,
    /// exponent 3, 6 dB of shadowing.
    public static let wifiTypical = PathLossModel(referenceDBm: -40, exponent: 3, shadowingSigmaDB: 6)

    /// The mean signal at `meters` (at least 1 m).
    public func signal(atMeters meters: Double) -> Double {
        referenceDBm - 10 * exponent * log10(max(1, meters))
    }

    /// The median distance at which `signalDBm` is heard (at least 1 m).
    public func distance(forSignal signalDBm: Double) -> Double {
        max(1, pow(10, (referenceDBm - signalDBm) / (10 * exponent)))
    }

    /// The standard deviation of ln(distance) that the shadowing leaves in `distance(forSignal:)`.
    public var logDistanceSigma: Double { shadowingSigmaDB * log(10) / (10 * exponent) }
}

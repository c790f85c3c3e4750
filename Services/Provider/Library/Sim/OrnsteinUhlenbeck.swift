import Foundation

/// A slowly wandering bias (multipath, atmosphere): an Ornstein–Uhlenbeck process with
/// stationary sigma `sigmaMeters` and correlation time `tauSeconds`, stepped exactly:
/// b' = b·e^(−Δt/τ) + σ·√(1 − e^(−2Δt/τ))·N(0,1). It starts from the stationary
/// distribution, so its statistics do not depend on how long the run is.
public struct OrnsteinUhlenbeck: Sendable {
    public let sigmaMeters: Double
    public let tauSeconds: Double
    public private(set) var value: Double

    public init(sigmaMeters: Double, tauSeconds: Double, noise: inout GaussianNoise) {
        self.sigmaMeters = sigmaMeters
        self.tauSeconds = max(tauSeconds, 1e-6)
        value = sigmaMeters > 0 ? sigmaMeters * noise.standard() : 0
    }

    public mutating func step(seconds: Double, noise: inout GaussianNoise) -> Double {
        guard sigmaMeters > 0 else { return 0 }
        let decay = Foundation.exp(-max(seconds, 0) / tauSeconds)
        value = value * decay + sigmaMeters * (1 - decay * decay).squareRoot() * noise.standard()
        return value
    }
}


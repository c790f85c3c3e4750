import Foundation
import LocusGeo
import LocusFusion
import LocusProvider

/// Seeded error processes added to a clean track: white Gaussian noise, rare large outliers
/// and a slowly wandering (Ornstein–Uhlenbeck) bias, the three ways real receivers go wrong.
public struct NoiseModel: Sendable {
    public enum Scenario: String, Sendable, CaseIterable {
        case white, outliers, bias
    }

    /// Radius (68 %) of the white noise, metres: the fixes report this as `hacc`.
    public var whiteHaccMeters = 5.0
    public var outlierProbability = 0.03
    public var outlierDistanceMeters = 50.0
    /// Per-axis standard deviation and time constant of the correlated bias.
    public var biasSigmaMeters = 3.0
    public var biasTimeConstantSeconds = 60.0
    /// Per-axis sigma (m/s) of the Doppler velocity each fix carries as `speed` and `course`
    /// with this `speedAcc`, as GNSS receivers report it (gpsd `eps`, u-blox `sAcc`; the Pixel 4
    /// log says 0.09 m/s). Nil: fixes carry position only.
    public var dopplerSigmaMetersPerSecond: Double? = 0.5

    public init() {}

    /// One fix as a receiver would report it, in the track's local metres.
    public struct NoisyFix: Sendable {
        public var east: Double
        public var north: Double
        public var hacc: Double
        public var speed: Double?
        public var course: Double?
        public var speedAcc: Double?
    }

    /// One noisy fix per sample: position, the `hacc` the fix reports and, when modelled, a
    /// Doppler velocity whose errors are independent of the position's (a separate stream, so
    /// the position noise of a seed is the same with or without it).
    public func corrupt(_ samples: [KittiTrack.Sample], scenario: Scenario, seed: UInt64) -> [NoisyFix] {
        let positions = corruptPositions(samples, scenario: scenario, seed: seed)
        guard let sigma = dopplerSigmaMetersPerSecond else {
            return positions.map { NoisyFix(east: $0.east, north: $0.north, hacc: $0.hacc) }
        }
        var random = GaussianNoise(seed: seed ^ 0xD0_9917)
        let velocities = KittiTrack.velocities(of: samples)
        return zip(positions, velocities).map { position, velocity in
            let east = velocity.east + sigma * random.standard()
            let north = velocity.north + sigma * random.standard()
            var course = atan2(east, north) * 180 / .pi
            if course < 0 { course += 360 }
            if course >= 360 { course -= 360 }
            return NoisyFix(east: position.east, north: position.north, hacc: position.hacc,
                            speed: hypot(east, north), course: course, speedAcc: sigma)
        }
    }

    private func corruptPositions(_ samples: [KittiTrack.Sample], scenario: Scenario, seed: UInt64) -> [(east: Double, north: Double, hacc: Double)] {
        var random = GaussianNoise(seed: seed)
        let whiteSigma = GaussianRadius.sigma(fromHacc: whiteHaccMeters)
        var bias = (0.0, 0.0)
        if scenario == .bias {
            bias = (biasSigmaMeters * random.standard(), biasSigmaMeters * random.standard())
        }
        // With a bias, an honest receiver's radius covers both parts of its error.
        let hacc = scenario == .bias ? GaussianRadius.hacc(fromSigma: (whiteSigma * whiteSigma + biasSigmaMeters * biasSigmaMeters).squareRoot())
            : whiteHaccMeters
        var previousT = samples.first?.t ?? 0
        return samples.map { sample in
            var east = sample.east + whiteSigma * random.standard()
            var north = sample.north + whiteSigma * random.standard()
            switch scenario {
            case .white:
                break
            case .outliers:
                if random.uniform() < outlierProbability {
                    let angle = 2 * .pi * random.uniform()
                    east += outlierDistanceMeters * sin(angle)
                    north += outlierDistanceMeters * cos(angle)
                }
            case .bias:
                let decay = exp(-(sample.t - previousT) / biasTimeConstantSeconds)
                let drive = biasSigmaMeters * (1 - decay * decay).squareRoot()
                bias = (bias.0 * decay + drive * random.standard(), bias.1 * decay + drive * random.standard())
                east += bias.0
                north += bias.1
            }
            previousT = sample.t
            return (east, north, hacc)
        }
    }
}

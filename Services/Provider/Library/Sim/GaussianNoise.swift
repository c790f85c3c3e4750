import Foundation
import LocusGeo

/// Normal deviates from a `SeededGenerator` (Box–Muller on 53-bit uniforms), written out
/// so the same seed gives the same numbers on every platform and Swift version.
public struct GaussianNoise: Sendable {
    private var generator: SeededGenerator
    private var spare: Double?

    public init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// A uniform number in [0, 1).
    public mutating func uniform() -> Double {
        Double(generator.next() >> 11) * 0x1p-53
    }

    /// A standard normal deviate (mean 0, sigma 1).
    public mutating func standard() -> Double {
        if let value = spare {
            spare = nil
            return value
        }
        let u1 = 1 - uniform()  // (0, 1]: log stays finite
        let u2 = uniform()
        let radius = (-2 * Foundation.log(u1)).squareRoot()
        spare = radius * Foundation.sin(2 * .pi * u2)
        return radius * Foundation.cos(2 * .pi * u2)
    }
}


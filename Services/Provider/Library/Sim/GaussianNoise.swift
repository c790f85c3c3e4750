import Foundation
import LocusGeo

/// Normal deviates from a `SeededGenerator` (Box–Muller, one deviate from each pair of
/// uniforms), written out so the same seed gives the same numbers on every platform and Swift
/// version. The uniforms are what the standard library's `Double.random(in:using:)` draws
/// (the low 53 bits of a word), the sequence the fusion accuracy bench's noise always had.
public struct GaussianNoise: Sendable {
    private var generator: SeededGenerator

    public init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// A uniform number in [0, 1).
    public mutating func uniform() -> Double {
        Double(generator.next() & (1 << 53 - 1)) * 0x1p-53
    }

    /// A standard normal deviate (mean 0, sigma 1).
    public mutating func standard() -> Double {
        let u1 = (1 - .ulpOfOne) * uniform() + .ulpOfOne  // [ε, 1): log stays finite
        let u2 = uniform()
        return (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * .pi * u2)
    }
}

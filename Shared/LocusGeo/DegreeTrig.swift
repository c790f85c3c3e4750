import Foundation

/// Trigonometry in degrees with exact argument reduction, for the geodesic solvers.
///
/// Reducing in degrees before converting to radians keeps quarter turns exact
/// (sin 180° is 0, not 1.2e-16), so the poles, the equator and the antimeridian are
/// hit exactly instead of being missed by a rounding error.
enum DegreeTrig {
    static let radiansPerDegree = Double.pi / 180

    /// Sine and cosine of an angle in degrees.
    static func sinCos(degrees: Double) -> (sin: Double, cos: Double) {
        guard degrees.isFinite else { return (.nan, .nan) }
        let reduced = remainder(degrees, 360)
        let quarter = (reduced / 90).rounded()
        let offsetRadians = (reduced - 90 * quarter) * radiansPerDegree
        let s = sin(offsetRadians), c = cos(offsetRadians)
        // Rotate (c, s) by `quarter` right angles; adding 0 turns −0 into +0.
        switch Int(quarter) & 3 {
        case 0: return (s + 0, c + 0)
        case 1: return (c + 0, -s + 0)
        case 2: return (-s + 0, -c + 0)
        default: return (-c + 0, s + 0)
        }
    }

    /// atan2 in degrees, (−180, 180].
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        atan2(y, x) / radiansPerDegree
    }

    /// Snaps angles so close to zero that their sine would lose relative precision onto a
    /// coarser grid (1/16° steps below 1/16°): tiny latitudes then behave like zero
    /// consistently instead of producing ill-conditioned lines.
    static func rounded(_ degrees: Double) -> Double {
        let grid = 1.0 / 16
        let magnitude = abs(degrees)
        let snapped = magnitude < grid ? grid - (grid - magnitude) : magnitude
        return degrees < 0 ? -snapped : snapped
    }

    /// `b − a` reduced to [−180, 180], computed so the rounding of the raw difference of two
    /// longitudes near ±180 does not leak into the result.
    static func longitudeDifference(_ a: Double, _ b: Double) -> Double {
        let difference = remainder(remainder(-a, 360) + remainder(b, 360), 360)
        // remainder gives [−180, 180]; map −180 to 180 so an antipodal pair keeps one sign.
        return difference == -180 ? 180 : difference
    }

    /// Latitude replaced by NaN when out of [−90, 90], so bad input cannot fold onto a valid point.
    static func checkedLatitude(_ degrees: Double) -> Double {
        abs(degrees) > 90 ? .nan : degrees
    }
}

/// Scales (s, c) to unit length in place.
@inline(__always)
func normalizeSinCos(_ s: inout Double, _ c: inout Double) {
    let length = (s * s + c * c).squareRoot()
    s /= length
    c /= length
}

/// `x` clamped at +0 (never −0, which would flip atan2(·, negative) from π to −π).
@inline(__always)
func clampedNonNegative(_ x: Double) -> Double {
    x > 0 ? x : 0
}

/// The side of a line a point lies on, decided exactly: the sign of
/// `(b − a) × (c − a)` computed without rounding error.
///
/// Point-in-polygon answers on a boundary depend on this sign being right when it is zero
/// or nearly so (a point on an edge, a vertex on a ray). The ordinary floating-point
/// product decides almost every call; when its value lies within its own error bound the
/// determinant is summed exactly as a floating-point expansion (error-free products and
/// sums), so the answer is the sign of the true value for any finite input.
public enum ExactOrientation {
    /// +1 when `c` lies left of the directed line a→b (counter-clockwise), −1 right, 0 on it.
    @inline(__always)
    public static func sign(ax: Double, ay: Double, bx: Double, by: Double, cx: Double, cy: Double) -> Int {
        let left = (bx - ax) * (cy - ay)
        let right = (by - ay) * (cx - ax)
        let det = left - right
        // Bound on the error of `det` from the roundings of the differences, products and
        // subtraction (Shewchuk's ccwerrboundA, 3.33e-16, rounded up): outside it the sign is right.
        let bound = 4e-16 * (abs(left) + abs(right))
        if det > bound { return 1 }
        if det < -bound { return -1 }
        return exactSign(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy)
    }

    /// The sign from an exact expansion of the determinant.
    static func exactSign(ax: Double, ay: Double, bx: Double, by: Double, cx: Double, cy: Double) -> Int {
        // Each difference is exactly hi + lo.
        let (dx1, ex1) = twoDifference(bx, ax)
        let (dy1, ey1) = twoDifference(cy, ay)
        let (dy2, ey2) = twoDifference(by, ay)
        let (dx2, ex2) = twoDifference(cx, ax)
        // (dx1 + ex1)(dy1 + ey1) − (dy2 + ey2)(dx2 + ex2): eight products, each exactly p + e.
        var expansion = Expansion()
        for (u, v, negate) in [(dx1, dy1, false), (dx1, ey1, false), (ex1, dy1, false), (ex1, ey1, false),
                               (dy2, dx2, true), (dy2, ex2, true), (ey2, dx2, true), (ey2, ex2, true)] {
            let product = u * v
            let error = fmaError(u, v, product)
            expansion.add(negate ? -product : product)
            expansion.add(negate ? -error : error)
        }
        return expansion.sign
    }

    /// a − b as hi + lo exactly (Knuth's two-sum on the negation).
    @inline(__always)
    static func twoDifference(_ a: Double, _ b: Double) -> (Double, Double) {
        let x = a - b
        let bv = a - x
        let av = x + bv
        let br = bv - b
        let ar = a - av
        return (x, ar + br)
    }

    /// The rounding error of `product = u × v`, exactly, through a fused multiply-add.
    @inline(__always)
    static func fmaError(_ u: Double, _ v: Double, _ product: Double) -> Double {
        (-product).addingProduct(u, v)
    }

    /// A sum of doubles kept exactly as non-overlapping components in increasing magnitude
    /// (Shewchuk's grow-expansion); its sign is the sign of its largest non-zero component.
    struct Expansion {
        private var components: [Double] = []

        mutating func add(_ value: Double) {
            var q = value
            var kept: [Double] = []
            kept.reserveCapacity(components.count + 1)
            for component in components {
                let sum = q + component
                let bv = sum - q
                let av = sum - bv
                let error = (q - av) + (component - bv)
                if error != 0 { kept.append(error) }
                q = sum
            }
            if q != 0 { kept.append(q) }
            components = kept
        }

        var sign: Int {
            guard let last = components.last else { return 0 }
            return last > 0 ? 1 : -1
        }
    }
}

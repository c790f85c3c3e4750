import LocusGeo

/// A drive through the simulated city: a seeded walk from intersection to intersection that
/// mostly goes straight, never turns back and keeps two blocks from the edge.
public struct CityRoute: Sendable {
    /// Intersections in the city's east/north frame, metres.
    public let points: [(east: Double, north: Double)]

    public init(plan: CityPlan, lengthMeters: Double, seed: UInt64) {
        var random = GaussianNoise(seed: seed ^ 0x524F_5554)
        let blocks = plan.configuration.blocks
        let margin = min(2, blocks / 4)
        var node = (blocks / 2, blocks / 2)
        var heading = (1, 0)
        var points = [node]
        var length = 0.0
        while length < lengthMeters {
            let options = [heading, (heading.1, -heading.0), (-heading.1, heading.0)].filter { step in
                let next = (node.0 + step.0, node.1 + step.1)
                return next.0 >= margin && next.0 <= blocks - margin && next.1 >= margin && next.1 <= blocks - margin
            }
            guard !options.isEmpty else { heading = (-heading.0, -heading.1); continue }
            let roll = random.uniform()
            let step = roll < 0.55 || options.count == 1 ? options[0] : options[roll < 0.775 ? 1 % options.count : (options.count - 1)]
            heading = step
            node = (node.0 + step.0, node.1 + step.1)
            points.append(node)
            length += plan.configuration.blockMeters
        }
        self.points = points.map { (Double($0.0) * plan.configuration.blockMeters, Double($0.1) * plan.configuration.blockMeters) }
    }

    /// The route as a timed path at `metersPerSecond`.
    public func path(in plan: CityPlan, metersPerSecond: Double) -> RoutePath {
        var offset = 0.0
        var vertices: [RoutePath.Vertex] = []
        for (index, point) in points.enumerated() {
            if index > 0 {
                let last = points[index - 1]
                offset += ((point.east - last.east) * (point.east - last.east) + (point.north - last.north) * (point.north - last.north))
                    .squareRoot() / metersPerSecond
            }
            vertices.append(RoutePath.Vertex(coordinate: plan.coordinate(east: point.east, north: point.north), elevation: nil, offset: offset))
        }
        return RoutePath(vertices: vertices)
    }
}

public import LocusGeo

/// A path with a time for each vertex, asked "where is the device at time t?":
/// great-circle interpolation inside a segment, with the segment's speed and course.
public struct RoutePath: Sendable {
    public struct Vertex: Sendable, Equatable {
        public var coordinate: Coordinate
        public var elevation: Double?
        /// Seconds from the start of the path.
        public var offset: Double
    }

    public let vertices: [Vertex]

    public init(vertices: [Vertex]) {
        self.vertices = vertices
    }

    /// Vertices from GPX points: their own times where all have them, else at `metersPerSecond`.
    public init(points: [GPXPoint], metersPerSecond: Double) {
        let timeline = GPXTimeline(points: points, startTime: 0, metersPerSecond: metersPerSecond)
        let first = timeline.points.first?.t ?? 0
        vertices = timeline.points.map {
            Vertex(coordinate: Coordinate(lat: $0.point.lat, lon: $0.point.lon), elevation: $0.point.elevation, offset: $0.t - first)
        }
    }

    public var duration: Double { vertices.last?.offset ?? 0 }

    /// Position, elevation, speed (m/s) and course (degrees, nil when not moving) at `offset` seconds.
    public func state(at offset: Double) -> (coordinate: Coordinate, elevation: Double?, speed: Double, course: Double?) {
        guard let first = vertices.first else { return (Coordinate(lat: 0, lon: 0), nil, 0, nil) }
        guard vertices.count > 1, offset > first.offset else { return (first.coordinate, first.elevation, 0, nil) }
        var low = 0
        var high = vertices.count - 1
        guard offset < vertices[high].offset else { return (vertices[high].coordinate, vertices[high].elevation, 0, nil) }
        while high - low > 1 {
            let middle = (low + high) / 2
            if vertices[middle].offset <= offset { low = middle } else { high = middle }
        }
        let a = vertices[low], b = vertices[high]
        let span = b.offset - a.offset
        let fraction = span > 0 ? (offset - a.offset) / span : 0
        let line = Geodesic.inverse(a.coordinate, b.coordinate)
        let here = Geodesic.destination(from: a.coordinate, azimuthDegrees: line.azimuth1Degrees, distanceMeters: line.distanceMeters * fraction)
        var elevation: Double?
        if let ea = a.elevation, let eb = b.elevation { elevation = ea + (eb - ea) * fraction }
        let speed = span > 0 ? line.distanceMeters / span : 0
        return (here, elevation, speed, line.distanceMeters > 0.01 ? FixMapping.normalizedCourse(line.azimuth1Degrees) : nil)
    }
}

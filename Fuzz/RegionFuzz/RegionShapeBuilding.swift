/// Turns a decoded `region.add` shape into the LocusGeo shape a geofence monitors, with
/// the client-input validators (`Circle.validated`, `Polygon(rings:)`, `MultiPolygon.validated`,
/// `Corridor(line:widthMeters:)`).
enum RegionShapeBuilding {
    static func build(_ shape: RegionShape) -> Result<Shape, ShapeError> {
        func coordinates(_ ring: [GeoPoint]) -> [Coordinate] { ring.map { Coordinate(lat: $0.lat, lon: $0.lon) } }
        do throws(ShapeError) {
            switch shape {
            case .circle(let center, let radius):
                return .success(.circle(try Circle.validated(center: Coordinate(lat: center.lat, lon: center.lon), radiusMeters: radius)))
            case .polygon(let rings):
                return .success(.polygon(try Polygon(rings: rings.map(coordinates))))
            case .multiPolygon(let polygons):
                return .success(.multiPolygon(try MultiPolygon.validated(polygons: polygons.map { $0.map(coordinates) })))
            case .corridor(let line, let width):
                return .success(.corridor(try Corridor(line: coordinates(line), widthMeters: width)))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Points worth probing: the shape's own positions, its box corners and a far point.
    static func probes(_ shape: RegionShape) -> [Coordinate] {
        var points: [GeoPoint]
        switch shape {
        case .circle(let center, _): points = [center]
        case .polygon(let rings): points = rings.flatMap { $0 }
        case .multiPolygon(let polygons): points = polygons.flatMap { $0.flatMap { $0 } }
        case .corridor(let line, _): points = line
        }
        points = Array(points.prefix(64))
        return points.map { Coordinate(lat: $0.lat, lon: $0.lon) }
    }
}

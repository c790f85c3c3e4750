import LocusGeo
import LocusProtocol

/// Turns a wire shape into checked geometry: the protocol checks structure (closed rings,
/// ranges); this adds what needs geometry (self-crossing rings, zero area) and the
/// service's radius limits.
enum RegionShapeConversion {
    /// The geometry to monitor and, for a widened circle, its effective radius.
    static func shape(from wire: RegionShape, configuration: GeofenceConfiguration) throws(RegionRejection) -> (Shape, Double?) {
        switch wire {
        case .circle(let center, let radius):
            guard radius.isFinite, radius > 0 else {
                throw RegionRejection(.radiusTooSmall, "radius \(radius) m must be positive")
            }
            guard radius <= configuration.maximumRadiusMeters else {
                throw RegionRejection(.radiusTooLarge, "radius \(radius) m exceeds the maximum of \(configuration.maximumRadiusMeters) m")
            }
            let effective = max(radius, configuration.minimumRadiusMeters)
            do {
                let circle = try Circle.validated(center: Coordinate(lat: center.lat, lon: center.lon), radiusMeters: effective)
                return (.circle(circle), effective > radius ? effective : nil)
            } catch {
                throw RegionRejection(.invalidShape, error.message)
            }
        case .polygon(let rings):
            do {
                return (.polygon(try Polygon(rings: rings.map(coordinates))), nil)
            } catch {
                throw RegionRejection(.invalidShape, error.message)
            }
        case .corridor(let line, let width):
            do {
                return (.corridor(try Corridor(line: coordinates(line), widthMeters: width)), nil)
            } catch {
                throw RegionRejection(.invalidShape, error.message)
            }
        case .multiPolygon(let polygons):
            do {
                return (.multiPolygon(try MultiPolygon.validated(polygons: polygons.map { $0.map(coordinates) })), nil)
            } catch {
                throw RegionRejection(.invalidShape, error.message)
            }
        }
    }

    private static func coordinates(_ ring: [GeoPoint]) -> [Coordinate] {
        ring.map { Coordinate(lat: $0.lat, lon: $0.lon) }
    }
}

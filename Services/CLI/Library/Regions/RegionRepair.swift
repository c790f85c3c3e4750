import LocusGeo
import LocusProtocol

/// `locus regions import --repair`: each polygon's rings through `RingRepair` before they
/// are sent, with one line per change for the person importing.
enum RegionRepair {
    static func apply(_ regions: [Region]) -> (regions: [Region], report: [String]) {
        var report: [String] = []
        let repaired = regions.map { region -> Region in
            var region = region
            let polygons: [[[GeoPoint]]]
            switch region.shape {
            case .polygon(let rings): polygons = [rings]
            case .multiPolygon(let parts): polygons = parts
            case .circle, .corridor: return region
            }
            var parts: [[[GeoPoint]]] = []
            for (number, rings) in polygons.enumerated() {
                let result = RingRepair.repair(polygon: rings.map { $0.map { Coordinate(lat: $0.lat, lon: $0.lon) } })
                let prefix = polygons.count > 1 ? "\(region.id) polygon \(number)" : region.id
                report += result.changes.map { "repaired \(prefix): \($0)" }
                parts += result.parts.map { $0.map { $0.map { GeoPoint(lon: $0.lon, lat: $0.lat) } } }
            }
            region.shape = parts.count == 1 ? .polygon(parts[0]) : .multiPolygon(parts)
            return region
        }
        return (repaired, report)
    }
}

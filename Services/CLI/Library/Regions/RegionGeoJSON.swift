import Foundation
import LocusProtocol

/// GeoJSON in and out for `locus regions import|export`. GeoJSON has no circle, so a
/// circle travels as a Point feature with a `radius` property.
enum RegionGeoJSON {
    struct FormatError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FormatError("expected a JSON object")
        }
        return object
    }

    static func regions(from data: Data) throws -> [Region] {
        let root = try object(data)
        let features: [[String: Any]]
        switch root["type"] as? String {
        case "FeatureCollection": features = root["features"] as? [[String: Any]] ?? []
        case "Feature": features = [root]
        default: throw FormatError("expected a FeatureCollection or a Feature")
        }
        return try features.enumerated().map { index, feature in
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let id = (properties["id"] ?? feature["id"]).map({ "\($0)" }), !id.isEmpty else {
                throw FormatError("feature \(index) has no id (properties.id or id)")
            }
            guard let geometry = feature["geometry"] as? [String: Any] else { throw FormatError("feature \(id) has no geometry") }
            let shape = try shape(fromGeometry: geometry, radius: (properties["radius"] as? NSNumber)?.doubleValue,
                                  width: ((properties["width"] ?? geometry["width"]) as? NSNumber)?.doubleValue)
            return Region(id: id, shape: shape, notifyOnEntry: properties["notifyOnEntry"] as? Bool ?? true,
                          notifyOnExit: properties["notifyOnExit"] as? Bool ?? true,
                          dwell: (properties["dwell"] as? NSNumber)?.doubleValue, devices: properties["devices"] as? [String])
        }
    }

    static func shape(fromGeometry geometry: [String: Any], radius: Double?, width: Double? = nil) throws -> RegionShape {
        func point(_ value: Any) throws -> GeoPoint {
            guard let pair = value as? [NSNumber], pair.count >= 2 else { throw FormatError("a position must be [lon, lat]") }
            return GeoPoint(lon: pair[0].doubleValue, lat: pair[1].doubleValue)
        }
        func rings(_ value: Any?) throws -> [[GeoPoint]] {
            guard let rings = value as? [[Any]] else { throw FormatError("polygon coordinates must be a list of rings") }
            return try rings.map { try $0.map(point) }
        }
        switch geometry["type"] as? String {
        case "Point":
            guard let radius else { throw FormatError("a Point feature needs a radius property (metres)") }
            return .circle(center: try point(geometry["coordinates"] as Any), radius: radius)
        case "Circle":
            guard let radius = (geometry["radius"] as? NSNumber)?.doubleValue else { throw FormatError("a Circle needs a radius") }
            return .circle(center: try point(geometry["center"] as Any), radius: radius)
        case "Polygon": return .polygon(try rings(geometry["coordinates"]))
        case "LineString":
            guard let width = width else { throw FormatError("a LineString feature needs a width property (metres)") }
            guard let positions = geometry["coordinates"] as? [Any] else { throw FormatError("LineString coordinates must be a list") }
            return .corridor(line: try positions.map(point), width: width)
        case "MultiPolygon":
            guard let polygons = geometry["coordinates"] as? [Any] else { throw FormatError("MultiPolygon coordinates must be a list") }
            return .multiPolygon(try polygons.map { try rings($0) })
        case let other: throw FormatError("unsupported geometry type \(other ?? "(none)")")
        }
    }

    static func featureCollection(_ regions: [Region]) -> String {
        let features: [[String: Any]] = regions.map { region in
            var properties: [String: Any] = ["id": region.id]
            if !region.notifyOnEntry { properties["notifyOnEntry"] = false }
            if !region.notifyOnExit { properties["notifyOnExit"] = false }
            if let dwell = region.dwell { properties["dwell"] = dwell }
            if let devices = region.devices { properties["devices"] = devices }
            let geometry: [String: Any]
            switch region.shape {
            case .circle(let center, let radius):
                properties["radius"] = radius
                geometry = ["type": "Point", "coordinates": [center.lon, center.lat]]
            case .polygon(let rings): geometry = ["type": "Polygon", "coordinates": positions(rings)]
            case .multiPolygon(let polygons): geometry = ["type": "MultiPolygon", "coordinates": polygons.map(positions)]
            case .corridor(let line, let width):
                properties["width"] = width
                geometry = ["type": "LineString", "coordinates": line.map { [$0.lon, $0.lat] }]
            }
            return ["type": "Feature", "id": region.id, "properties": properties, "geometry": geometry]
        }
        let collection: [String: Any] = ["type": "FeatureCollection", "features": features]
        let data = (try? JSONSerialization.data(withJSONObject: collection, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func summary(_ shape: RegionShape) -> String {
        switch shape {
        case .circle(let center, let radius): return "Circle \(center.lon),\(center.lat) r=\(radius) m"
        case .polygon(let rings): return "Polygon \(rings.count) ring(s), \(rings.first?.count ?? 0) positions"
        case .multiPolygon(let polygons): return "MultiPolygon \(polygons.count) part(s)"
        case .corridor(let line, let width): return "LineString \(line.count) positions, width \(width) m"
        }
    }

    private static func positions(_ rings: [[GeoPoint]]) -> [[[Double]]] {
        rings.map { $0.map { [$0.lon, $0.lat] } }
    }
}

import LocusGeo
import LocusProtocol

/// What a recorded stream shows on a map: tracks with their accuracy, regions and the
/// events that fired. Built from text-form lines, so a `locus tail > run.log` is enough.
struct PlotScene {
    struct Fix {
        var coordinate: Coordinate
        var haccMeters: Double
        var t: Double
        var source: String
    }

    struct EventMark {
        var coordinate: Coordinate
        var label: String
        var kind: RegionEventKind
    }

    enum Outline {
        case circle(center: Coordinate, radiusMeters: Double)
        case rings([[Coordinate]])
    }

    var tracks: [String: [Fix]] = [:]
    var regions: [String: Outline] = [:]
    var events: [EventMark] = []
    var skippedLines = 0

    /// Prefers fused positions; raw ones are drawn only for devices with no fused stream.
    mutating func add(line: Substring, datum: MapDatum) {
        guard let parsed = try? TextForm.parse(line), let message = try? MessageCodec.decode(parsed.body) else {
            if !line.allSatisfy({ $0 == " " }) { skippedLines += 1 }
            return
        }
        let convert = { (c: Coordinate) in MapDatum.wgs84.convert(c, to: datum) }
        switch message.body {
        case .location(let location):
            let fused = parsed.topic.hasPrefix(Topic.locationFusedPrefix)
            let key = (fused ? "" : "raw:") + location.device
            tracks[key, default: []].append(Fix(coordinate: convert(Coordinate(lat: location.lat, lon: location.lon)),
                                                haccMeters: location.hacc, t: message.envelope.t, source: location.source))
        case .regionAdd(let add): regions["\(add.owner)/\(add.region.id)"] = outline(add.region.shape, convert)
        case .regionAdded(let added):
            var outline = outline(added.region.shape, convert)
            if case .circle(let center, _) = outline, let radius = added.effectiveRadius {
                outline = .circle(center: center, radiusMeters: radius)
            }
            regions["\(added.owner)/\(added.region.id)"] = outline
        case .regionRemoved(let removed): regions["\(removed.owner)/\(removed.regionId)"] = nil
        case .regionEvent(let event) where event.event != .state:
            events.append(EventMark(coordinate: convert(Coordinate(lat: event.location.lat, lon: event.location.lon)),
                                    label: "\(event.event.rawValue) \(event.regionId)", kind: event.event))
        default: break
        }
    }

    /// Drops raw tracks of devices that also have a fused one.
    mutating func preferFused() {
        for key in tracks.keys where key.hasPrefix("raw:") && tracks[String(key.dropFirst(4))] != nil {
            tracks[key] = nil
        }
    }

    private func outline(_ shape: RegionShape, _ convert: (Coordinate) -> Coordinate) -> Outline {
        switch shape {
        case let .circle(center, radius):
            return .circle(center: convert(Coordinate(lat: center.lat, lon: center.lon)), radiusMeters: radius)
        case let .polygon(rings):
            return .rings(rings.map { $0.map { convert(Coordinate(lat: $0.lat, lon: $0.lon)) } })
        case let .multiPolygon(polygons):
            return .rings(polygons.flatMap { $0 }.map { $0.map { convert(Coordinate(lat: $0.lat, lon: $0.lon)) } })
        case let .corridor(line, _):
            // The route itself (its width is not drawn).
            return .rings([line.map { convert(Coordinate(lat: $0.lat, lon: $0.lon)) }])
        }
    }

    var isEmpty: Bool { tracks.isEmpty && regions.isEmpty && events.isEmpty }
}

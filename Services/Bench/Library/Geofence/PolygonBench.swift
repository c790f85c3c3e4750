import Foundation
import LocusService
import LocusGeo
import LocusProtocol

/// `locus bench geofence --polygons FILE`: "which polygons contain this point" through
/// LocusGeo's spatial index and `PolygonIndex`, beside shapely on the same GeoJSON and
/// the same points, then `locus-geofence --stdio` with the file's regions and a moving
/// fleet against the same run with no regions.
enum PolygonBench {
    static let spec = CommandLineSpec(
        program: "locus bench geofence --polygons",
        summary: "polygon kernel vs shapely prepared contains_xy; locus-geofence --stdio with and without the regions",
        usage: "locus bench geofence --polygons FILE [--generate world|city] [--points N] [--devices N] [--fixes N]",
        options: [
            OptionSpec("--polygons", value: "FILE", help: "GeoJSON FeatureCollection of Polygon/MultiPolygon features"),
            OptionSpec("--generate", value: "KIND", help: "first write a seeded scene to FILE: world (179 countries) or city (10 000 sites)"),
            OptionSpec("--points", value: "N", help: "random points over the features' box for the kernel", default: "1000000"),
            OptionSpec("--devices", value: "N", help: "moving devices in the --stdio run (0: skip it)", default: "2000"),
            OptionSpec("--fixes", value: "N", help: "fixes in the --stdio run", default: "1000000"),
            OptionSpec("--seed", value: "N", help: "random seed", default: "42"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Needs python3 with shapely ≥ 2 for the peer, and locus-geofence beside locus for the --stdio run.")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        guard let path = options.string("--polygons") else { ServiceProgram.usageFailure("locus bench geofence", "--polygons needs a FILE") }
        let points, devices, fixes: Int
        let seed: UInt64
        do throws(UsageError) {
            points = try options.int("--points") ?? 1_000_000
            devices = try options.int("--devices") ?? 2_000
            fixes = try options.int("--fixes") ?? 1_000_000
            seed = UInt64(try options.int("--seed") ?? 42)
        } catch { ServiceProgram.usageFailure("locus bench geofence", error.message) }
        if let kind = options.string("--generate") {
            guard let text = PolygonBenchScene.geoJSON(kind: kind, seed: seed) else {
                ServiceProgram.usageFailure("locus bench geofence", "--generate: unknown scene '\(kind)' (\(PolygonBenchScene.kinds.joined(separator: ", ")))")
            }
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                FileHandle.standardError.write(Data("locus bench geofence: cannot write \(path)\n".utf8))
                return 1
            }
        }
        let loaded: PolygonBenchFile
        do { loaded = try PolygonBenchFile(path: path) } catch {
            FileHandle.standardError.write(Data("locus bench geofence: \(path): \(error)\n".utf8))
            return 1
        }
        for refusal in loaded.refused.prefix(5) { print("refused as the service would: \(refusal)") }
        let name = URL(fileURLWithPath: path).lastPathComponent
        print("| polygon kernel: \(name), \(loaded.shapes.count) regions, \(loaded.vertices) vertices, \(points) points | points/s/core | hits |")
        print("|---|---:|---:|")
        let query = loaded.randomPoints(points, seed: seed)
        let ours = PolygonKernel.measure(shapes: loaded.shapes, points: query)
        print("| LocusGeo SpatialIndex + PolygonIndex (exact, GEOS boundary rules; thread CPU time) | \(Int(ours.pointsPerCPUSecond)) | \(ours.hits) |")
        print("| the same run in wall time | \(Int(ours.pointsPerWallSecond)) | |")
        let peer = ShapelyPolygonPeer.run(path: path, accepted: loaded.acceptedIndices, points: query)
        let goal = GeofenceBenchCore.targetPointsPerSecond
        BenchRecorder.shared.record(BenchRow(name: "polygon kernel, \(name)", ours: ours.pointsPerCPUSecond, peer: peer?.best,
                                             peerName: peer.map { "shapely \($0.version) prepared" } ?? "shapely (not installed)",
                                             unit: "points/s/core", goal: .atLeast(goal)))
        if let peer {
            print("| shapely \(peer.version): STRtree candidates + prepared contains_xy | \(Int(peer.containsXY)) | \(peer.containsHits) |")
            print("| shapely \(peer.version): STRtree query(predicate=\"within\") | \(Int(peer.within)) | \(peer.withinHits) |")
            print("| ratio to shapely's faster way | \(String(format: "%.1f×", ours.pointsPerCPUSecond / max(peer.best, 1))) | goal ≥ 2 M points/s/core and ≥ 2× |")
            if peer.containsHits != ours.hits { print("| hits differ from shapely's | \(ours.hits) vs \(peer.containsHits) | |") }
        } else {
            print("| shapely | (python3 with shapely not available) | |")
        }
        guard devices > 0, fixes > 0 else { return 0 }
        print("")
        return PolygonStdioRun(file: loaded, devices: devices, fixes: fixes, seed: seed).run()
    }
}

/// The kernel's loop, timed like `GeofenceKernelBench`: candidates from the spatial index,
/// then each candidate's exact containment.
enum PolygonKernel {
    static func measure(shapes: [Shape], points: [Coordinate]) -> GeofenceKernelBench.Measurement {
        var index = SpatialIndex<Int>()
        for (number, shape) in shapes.enumerated() { index.insert(number, box: shape.boundingBox) }
        // The grids by unmanaged reference, as the geofence's per-fix records hold them
        // (`shapes` keeps them alive): no reference counting per candidate.
        let grids = shapes.compactMap(\.polygonIndex).map(\.probe)
        var hits = 0
        let wallStart = Date().timeIntervalSince1970
        let start = GeofenceKernelBench.threadCPUSeconds()
        grids.withUnsafeBufferPointer { grids in
            for point in points {
                index.forEachCandidate(containing: point) { number in
                    if grids[number].contains(point) { hits += 1 }
                }
            }
        }
        withExtendedLifetime(shapes) {}
        let seconds = GeofenceKernelBench.threadCPUSeconds() - start
        return GeofenceKernelBench.Measurement(points: points.count, hits: hits, cpuSeconds: seconds,
                                               wallSeconds: Date().timeIntervalSince1970 - wallStart)
    }
}

/// A GeoJSON file's polygons as the service would monitor them.
struct PolygonBenchFile {
    var regions: [Region] = []
    var shapes: [Shape] = []
    /// Positions in the file's feature list of the regions kept.
    var acceptedIndices: [Int] = []
    var refused: [String] = []
    var vertices = 0
    var box = BoundingBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)

    init(path: String) throws {
        let all = try Self.regions(try Data(contentsOf: URL(fileURLWithPath: path)))
        for (number, region) in all.enumerated() {
            guard let region else { continue }
            let shape: Shape
            do {
                switch region.shape {
                case .polygon(let rings): shape = .polygon(try Polygon(rings: rings.map(Self.coordinates)))
                case .multiPolygon(let parts): shape = .multiPolygon(try MultiPolygon.validated(polygons: parts.map { $0.map(Self.coordinates) }))
                case .circle, .corridor: continue
                }
            } catch {
                refused.append("\(region.id): \(error.message)")
                continue
            }
            regions.append(region)
            shapes.append(shape)
            acceptedIndices.append(number)
            let box = shape.boundingBox
            self.box = BoundingBox(minLat: min(self.box.minLat, box.minLat), minLon: min(self.box.minLon, box.minLon),
                                   maxLat: max(self.box.maxLat, box.maxLat), maxLon: max(self.box.maxLon, box.maxLon))
            switch region.shape {
            case .polygon(let rings): vertices += rings.map(\.count).reduce(0, +)
            case .multiPolygon(let parts): vertices += parts.flatMap { $0 }.map(\.count).reduce(0, +)
            case .circle, .corridor: break
            }
        }
    }

    static func coordinates(_ ring: [GeoPoint]) -> [Coordinate] { ring.map { Coordinate(lat: $0.lat, lon: $0.lon) } }

    /// The Polygon and MultiPolygon features of a FeatureCollection by position in the
    /// file (nil for other geometries); ids from `properties.id` or `id`, else the position.
    static func regions(_ data: Data) throws -> [Region?] {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let features = root["features"] as? [[String: Any]] else { throw PolygonBenchError("expected a GeoJSON FeatureCollection") }
        func rings(_ value: Any?) throws -> [[GeoPoint]] {
            guard let rings = value as? [[[NSNumber]]] else { throw PolygonBenchError("polygon coordinates must be rings of [lon, lat]") }
            return try rings.map { ring in
                try ring.map { pair in
                    guard pair.count >= 2 else { throw PolygonBenchError("a position needs [lon, lat]") }
                    return GeoPoint(lon: pair[0].doubleValue, lat: pair[1].doubleValue)
                }
            }
        }
        return try features.enumerated().map { number, feature in
            let geometry = feature["geometry"] as? [String: Any] ?? [:]
            let id = ((feature["properties"] as? [String: Any])?["id"] ?? feature["id"]).map { "\($0)" } ?? "feature-\(number)"
            switch geometry["type"] as? String {
            case "Polygon": return Region(id: id, shape: .polygon(try rings(geometry["coordinates"])))
            case "MultiPolygon":
                guard let parts = geometry["coordinates"] as? [Any] else { throw PolygonBenchError("MultiPolygon coordinates must be a list") }
                return Region(id: id, shape: .multiPolygon(try parts.map { try rings($0) }))
            default: return nil
            }
        }
    }

    /// Uniform points over the features' box.
    func randomPoints(_ count: Int, seed: UInt64) -> [Coordinate] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            Coordinate(lat: Double.random(in: box.minLat...box.maxLat, using: &random),
                       lon: Double.random(in: box.minLon...box.maxLon, using: &random))
        }
    }
}

import Foundation
import LocusGeo

/// shapely on the same GeoJSON features and points as `PolygonKernel`, two ways: an
/// STRtree's box candidates tested with prepared `contains_xy`, and the STRtree's own
/// `query(predicate="within")`. Making shapely's point objects is left out of its time.
enum ShapelyPolygonPeer {
    struct Result {
        var version: String
        var containsXY: Double
        var containsHits: Int
        var within: Double
        var withinHits: Int
        var best: Double { max(containsXY, within) }
    }

    static let script = """
    import json, sys, time
    import numpy as np
    import shapely
    from shapely import STRtree
    from shapely.geometry import shape
    geojson, points_path = sys.argv[1], sys.argv[2]
    accepted = json.load(sys.stdin)
    with open(geojson) as f:
        features = json.load(f)["features"]
    geoms = np.array([shape(features[i]["geometry"]) for i in accepted], dtype=object)
    shapely.prepare(geoms)
    tree = STRtree(geoms)
    xy = np.fromfile(points_path, dtype="<f8").reshape(-1, 2)
    points = shapely.points(xy[:, 0], xy[:, 1])
    start = time.perf_counter()
    pi, gi = tree.query(points)
    inside = shapely.contains_xy(geoms[gi], xy[pi, 0], xy[pi, 1])
    contains_seconds = time.perf_counter() - start
    start = time.perf_counter()
    found = tree.query(points, predicate="within")
    within_seconds = time.perf_counter() - start
    n = len(xy)
    print(json.dumps({"version": shapely.__version__, "containsXY": n / contains_seconds, "containsHits": int(inside.sum()),
                      "within": n / within_seconds, "withinHits": int(found.shape[1])}))
    """

    static func run(path: String, accepted: [Int], points: [Coordinate]) -> Result? {
        let pointsPath = NSTemporaryDirectory() + "locus-polygon-points-\(getpid()).f64"
        defer { try? FileManager.default.removeItem(atPath: pointsPath) }
        var values: [Double] = []
        values.reserveCapacity(points.count * 2)
        for p in points {
            values.append(p.lon)
            values.append(p.lat)
        }
        guard FileManager.default.createFile(atPath: pointsPath, contents: values.withUnsafeBufferPointer { Data(buffer: $0) }) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, pointsPath]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        input.fileHandleForWriting.write((try? JSONSerialization.data(withJSONObject: accepted)) ?? Data("[]".utf8))
        try? input.fileHandleForWriting.close()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let object = try? JSONSerialization.jsonObject(with: text) as? [String: Any] else { return nil }
        func number(_ key: String) -> Double { (object[key] as? NSNumber)?.doubleValue ?? 0 }
        return Result(version: object["version"] as? String ?? "?", containsXY: number("containsXY"), containsHits: Int(number("containsHits")),
                      within: number("within"), withinHits: Int(number("withinHits")))
    }
}

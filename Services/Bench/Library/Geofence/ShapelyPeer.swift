import Foundation
import LocusGeo

/// Runs shapely on exactly the kernel's scene, written to a file in tangent-plane metres.
enum ShapelyPeer {
    static let script = """
    import json, sys, time
    import numpy as np
    import shapely
    from shapely import STRtree
    path, circles, points = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = np.fromfile(path, dtype="<f8")
    c = data[: circles * 3].reshape(circles, 3)
    p = data[circles * 3 :].reshape(points, 2)
    polygons = shapely.buffer(shapely.points(c[:, 0], c[:, 1]), c[:, 2], quad_segs=16)
    tree = STRtree(polygons)
    queries = shapely.points(p[:, 0], p[:, 1])
    start = time.perf_counter()
    found = tree.query(queries, predicate="within")
    seconds = time.perf_counter() - start
    print(json.dumps({"pointsPerSecond": points / seconds, "hits": int(found.shape[1]), "version": shapely.__version__}))
    """

    static func run(circles: Int, points: Int, seed: UInt64) -> (pointsPerSecond: Double, hits: Int, version: String)? {
        // The same draws, in the same order, as GeofenceKernelBench.
        var random = SeededGenerator(seed: seed)
        let half = GeofenceKernelBench.sceneSideMeters / 2
        var values: [Double] = []
        values.reserveCapacity(circles * 3 + points * 2)
        for _ in 0..<circles {
            values.append(Double.random(in: -half...half, using: &random))
            values.append(Double.random(in: -half...half, using: &random))
            values.append(Double.random(in: 100...1000, using: &random))
        }
        for _ in 0..<(points * 2) { values.append(Double.random(in: -half...half, using: &random)) }
        let path = NSTemporaryDirectory() + "locus-geofence-scene-\(getpid()).f64"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
        guard FileManager.default.createFile(atPath: path, contents: data) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, "\(circles)", "\(points)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let object = try? JSONSerialization.jsonObject(with: text) as? [String: Any],
              let rate = (object["pointsPerSecond"] as? NSNumber)?.doubleValue,
              let hits = (object["hits"] as? NSNumber)?.intValue else { return nil }
        return (rate, hits, object["version"] as? String ?? "?")
    }
}

import Foundation
import LocusGeo

/// `locus bench geodesic`: calls per second of the exact geodesic (Karney's method in
/// LocusGeo) on three kinds of pairs, beside `FastDistance`, the approximation hot paths
/// use first, measured in the same run. It shows what falling back to the exact solution
/// costs, and guards the solver's speed (it replaced proj's `geod_inverse` at about the
/// same rate).
enum GeodesicBench {
    static func run(_ arguments: [String]) -> Int32 {
        let count: Int
        switch BenchCountOption.parse(arguments, bench: "geodesic", defaultCount: 200_000, counting: "pairs per kind") {
        case .success(let value): count = value
        case .failure(let exit): return exit.code
        }
        print("Geodesics on WGS-84, \(count) seeded pairs per kind, best of 3 (calls/s)\n")
        print("| pairs | Geodesic.inverse | Geodesic.destination | FastDistance.meters |")
        print("|---|---:|---:|---:|")
        for kind in PairKind.allCases {
            let pairs = kind.pairs(count: count)
            let lines = pairs.map { Geodesic.inverse($0.0, $0.1) }
            let inverseRate = bestRate(pairs.count) { i, sink in sink += Geodesic.inverse(pairs[i].0, pairs[i].1).distanceMeters }
            let directRate = bestRate(pairs.count) { i, sink in
                sink += Geodesic.destination(from: pairs[i].0, azimuthDegrees: lines[i].azimuth1Degrees, distanceMeters: lines[i].distanceMeters).lat
            }
            let fastRate = bestRate(pairs.count) { i, sink in sink += FastDistance.meters(pairs[i].0, pairs[i].1) }
            print("| \(kind.rawValue) | \(Int(inverseRate)) | \(Int(directRate)) | \(Int(fastRate)) |")
        }
        return 0
    }

    /// The kinds of pairs that take different paths through the inverse solver.
    enum PairKind: String, CaseIterable {
        case global = "random, anywhere"
        case short = "short (< 10 km)"
        case nearlyAntipodal = "nearly antipodal (< 0.5°)"

        func pairs(count: Int) -> [(Coordinate, Coordinate)] {
            var rng = SeededGenerator(seed: 20_261_129)
            return (0..<count).map { _ in
                let start = Coordinate(lat: Double.random(in: -89...89, using: &rng), lon: Double.random(in: -180...180, using: &rng))
                switch self {
                case .global:
                    return (start, Coordinate(lat: Double.random(in: -90...90, using: &rng), lon: Double.random(in: -180...180, using: &rng)))
                case .short:
                    let end = Geodesic.destination(from: start, azimuthDegrees: Double.random(in: 0..<360, using: &rng),
                                                   distanceMeters: Double.random(in: 1...10_000, using: &rng))
                    return (start, end)
                case .nearlyAntipodal:
                    let lat = -start.lat + Double.random(in: -0.5...0.5, using: &rng)
                    let lon = remainder(start.lon + 180 + Double.random(in: -0.5...0.5, using: &rng), 360)
                    return (start, Coordinate(lat: lat, lon: lon))
                }
            }
        }
    }

    /// The fastest of three passes over `count` indices, in calls per second.
    private static func bestRate(_ count: Int, _ body: (Int, inout Double) -> Void) -> Double {
        var best = 0.0
        var sink = 0.0
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<count { body(index, &sink) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            best = max(best, Double(count) / seconds)
        }
        if sink.isNaN { FileHandle.standardError.write(Data("locus bench geodesic: a result was NaN\n".utf8)) }
        return best
    }
}

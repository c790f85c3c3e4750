import Foundation
import LocusProvider

/// `locus bench network`: network positioning in a seeded simulated city (accuracy, not
/// speed), beside a plain mean of the known access points, and the OpenCellID-layout import
/// beside sqlite3's own CSV import of the same file.
enum NetworkBench {
    static let usage = """
        usage: locus bench network [--seeds N] [--first-seed S] [--route METERS] [--import-rows N] [--skip-import]
          --seeds N         cities (seeds S…S+N−1) to drive and average over (default 3)
          --first-seed S    first seed (default 1; the accuracy model was calibrated on seeds 101–104)
          --route METERS    length of each drive (default 12000)
          --import-rows N   rows of the generated OpenCellID-layout file (default 1000000)
        """

    static func run(_ arguments: [String]) -> Int32 {
        var seeds = 3
        var firstSeed = 1
        var options = NetworkCityRun.Options()
        var importRows = 1_000_000
        var skipImport = false
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--seeds": seeds = max(1, value.flatMap(Int.init) ?? seeds); index += 1
            case "--first-seed": firstSeed = max(1, value.flatMap(Int.init) ?? firstSeed); index += 1
            case "--route": options.routeMeters = max(1000, value.flatMap(Double.init) ?? options.routeMeters); index += 1
            case "--import-rows": importRows = max(1000, value.flatMap(Int.init) ?? importRows); index += 1
            case "--skip-import": skipImport = true
            case "--help", "-h": print(usage); return 0
            default:
                FileHandle.standardError.write(Data("locus bench network: unknown argument \(arguments[index])\n\(usage)\n".utf8))
                return 64
            }
            index += 1
        }
        var results: [NetworkCityRun.Result] = []
        for seed in firstSeed..<(firstSeed + seeds) {
            options.seed = UInt64(seed)
            do { results.append(try NetworkCityRun.run(options)) } catch {
                FileHandle.standardError.write(Data("locus bench network: \(error.message)\n".utf8))
                return 1
            }
        }
        let met = NetworkBenchReport.print(results)
        var status: Int32 = met ? 0 : 1
        if !skipImport { status = max(status, BeaconImportBench.run(rows: importRows)) }
        return status
    }
}

import Foundation

/// The OpenCellID-layout import benchmark (filled in below).
enum BeaconImportBench {
    static func run(rows: Int) -> Int32 { 0 }
}

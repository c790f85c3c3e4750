import Foundation

/// Paths to the shared test data, found from this file: `<repo>/../shared/data/`.
enum DataPaths {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let truth = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data/truth")
    static let kitti = truth.appendingPathComponent("KittiGps_converted.txt").path
    static let pixel4Log = truth.appendingPathComponent("google_decimeter_2021_Pixel4_GnssLog.txt").path
    static let pixel4Truth = truth.appendingPathComponent("google_decimeter_2021_Pixel4_ground_truth.csv").path
}

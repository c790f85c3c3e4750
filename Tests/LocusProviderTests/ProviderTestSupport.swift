import Foundation
import LocusGeo
@testable import LocusProvider

/// Paths to the shared test data and small helpers for provider tests.
enum ProviderTestData {
    /// `../shared/data` relative to the repository root.
    static var sharedData: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/data")
    }

    static func gpx(_ name: String) -> URL { sharedData.appendingPathComponent("gpx/\(name)") }
}

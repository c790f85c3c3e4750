// swift-tools-version: 6.0
// Locus: a location stack for Linux on a ZeroMQ bus. Layout: see DESIGN.md.
import PackageDescription

/// Strict settings applied to every Swift target: warnings are work, not noise.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

var targets: [Target] = [
    // C libraries from Debian, reached through module maps (no pkg-config: see DESIGN.md).
    .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ"),

    // Shared code.
    .target(name: "LocusProtocol", path: "Shared/LocusProtocol"),
    .target(name: "LocusGeo", path: "Shared/LocusGeo"),
    .target(name: "LocusBus", dependencies: ["CZeroMQ", "LocusProtocol"], path: "Shared/LocusBus"),
    .target(name: "LocusStore", dependencies: ["CSQLite", "LocusProtocol"], path: "Shared/LocusStore"),

    // Services: a library with the logic, a thin executable.
    .target(name: "LocusBroker", dependencies: ["CZeroMQ", "LocusBus", "LocusProtocol", "LocusStore"], path: "Services/Bus/Library"),
    .executableTarget(name: "locus-bus", dependencies: ["LocusBroker", "LocusBus"], path: "Services/Bus/Executable"),
    .target(name: "LocusProvider", dependencies: ["LocusProtocol", "LocusGeo", "LocusBus"], path: "Services/Provider/Library"),
    .executableTarget(name: "locus-provider", dependencies: ["LocusProvider", "LocusBus"], path: "Services/Provider/Executable"),
    .target(name: "LocusCLI", dependencies: ["CZeroMQ", "LocusProtocol", "LocusGeo", "LocusBus", "LocusBroker", "LocusProvider", "LocusFusion", "LocusGeofence", "LocusMap"], path: "Services/CLI/Library"),
    .executableTarget(name: "locus", dependencies: ["LocusCLI"], path: "Services/CLI/Executable"),

    // MARK: fusion
    .target(name: "LocusFusion", dependencies: ["LocusProtocol", "LocusGeo", "LocusBus", "LocusStore"], path: "Services/Fusion/Library"),
    .executableTarget(name: "locus-fusion", dependencies: ["LocusFusion", "LocusBus", "LocusProtocol"], path: "Services/Fusion/Executable"),
    .testTarget(name: "LocusFusionTests", dependencies: ["LocusFusion", "LocusProtocol", "LocusGeo", "LocusBus"], path: "Tests/LocusFusionTests"),

    // MARK: notifier
    .systemLibrary(name: "CSQLite", path: "Shared/CSQLite"),
    .systemLibrary(name: "CMosquitto", path: "Shared/CMosquitto"),
    .target(name: "LocusNotifier", dependencies: ["LocusStore", "CMosquitto", "LocusProtocol", "LocusGeo", "LocusBus"], path: "Services/Notifier/Library"),
    .executableTarget(name: "locus-notifier", dependencies: ["LocusNotifier", "LocusBus", "LocusProtocol"], path: "Services/Notifier/Executable"),
    .testTarget(name: "LocusNotifierTests", dependencies: ["LocusNotifier", "LocusStore", "LocusProtocol", "LocusBus"], path: "Tests/LocusNotifierTests"),
    // MARK: map
    .target(name: "LocusMap", dependencies: ["CZeroMQ", "LocusProtocol", "LocusBus"], path: "Services/Map/Library"),
    .testTarget(name: "LocusMapTests", dependencies: ["LocusMap", "LocusProtocol", "LocusBus", "CZeroMQ"], path: "Tests/LocusMapTests"),
    // MARK: motion
    .target(name: "LocusMotion", dependencies: ["LocusProtocol", "LocusGeo", "LocusBus"], path: "Services/Motion/Library"),
    .executableTarget(name: "locus-motion", dependencies: ["LocusMotion", "LocusBus"], path: "Services/Motion/Executable"),
    .testTarget(name: "LocusMotionTests", dependencies: ["LocusMotion", "LocusProvider", "LocusProtocol", "LocusGeo", "LocusBus"], path: "Tests/LocusMotionTests"),
    // MARK: geofence
    .target(name: "LocusGeofence", dependencies: ["LocusStore", "LocusProtocol", "LocusGeo", "LocusBus"], path: "Services/Geofence/Library"),
    .executableTarget(name: "locus-geofence", dependencies: ["LocusGeofence", "LocusBus"], path: "Services/Geofence/Executable"),
    .testTarget(name: "LocusGeofenceTests", dependencies: ["LocusGeofence", "LocusProtocol", "LocusGeo", "LocusBus", "LocusStore"], path: "Tests/LocusGeofenceTests"),

    // Unit tests next to what they test; integration tests start real processes.
    .testTarget(name: "LocusProtocolTests", dependencies: ["LocusProtocol"], path: "Tests/LocusProtocolTests"),
    .testTarget(name: "LocusGeoTests", dependencies: ["LocusGeo"], path: "Tests/LocusGeoTests", exclude: ["Fixtures"]),
    .testTarget(name: "LocusBusTests", dependencies: ["LocusBus", "LocusBroker", "LocusProtocol", "CZeroMQ"], path: "Tests/LocusBusTests"),
    .testTarget(name: "LocusProviderTests", dependencies: ["LocusProvider", "LocusProtocol"], path: "Tests/LocusProviderTests"),
    .testTarget(name: "LocusCLITests", dependencies: ["LocusCLI"], path: "Tests/LocusCLITests"),
    .testTarget(name: "LocusStoreTests", dependencies: ["LocusStore", "CSQLite"], path: "Tests/LocusStoreTests"),
]

/// Release builds carry the Swift runtime and Foundation inside each executable, linked at
/// a fixed address. Measured on Linux (docs/benchmarks.md): an idle program using
/// Foundation holds 17 MB resident with the shared Swift libraries and 7 MB linked
/// statically, because loading the shared ones relocates and touches pages across
/// libFoundation and ICU; a position-dependent executable needs no load-time relocation of
/// its own data (1.8 MB less per service). System C libraries (libzmq, SQLite) stay shared.
/// Swift code is compiled for the static runtime too, which is what `--static-swift-stdlib`
/// does, so the objects name the static libraries they need.
let releaseStaticRuntime: [SwiftSetting] = [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]
let releaseStaticLink: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-Xlinker", "-no-pie"], .when(platforms: [.linux], configuration: .release)),
]

for index in targets.indices where targets[index].type != .system {
    targets[index].swiftSettings = (targets[index].swiftSettings ?? []) + strict
}
for index in targets.indices where targets[index].type == .regular || targets[index].type == .executable {
    targets[index].swiftSettings = (targets[index].swiftSettings ?? []) + releaseStaticRuntime
}
for index in targets.indices where targets[index].type == .executable {
    targets[index].linkerSettings = (targets[index].linkerSettings ?? []) + releaseStaticLink
}

let package = Package(
    name: "Locus",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "locus-bus", targets: ["locus-bus"]),
        .executable(name: "locus-provider", targets: ["locus-provider"]),
        .executable(name: "locus", targets: ["locus"]),
        .executable(name: "locus-fusion", targets: ["locus-fusion"]),
        .executable(name: "locus-notifier", targets: ["locus-notifier"]),
        .executable(name: "locus-motion", targets: ["locus-motion"]),
        .executable(name: "locus-geofence", targets: ["locus-geofence"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)

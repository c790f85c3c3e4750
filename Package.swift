// swift-tools-version: 6.0
// Locus: a location stack for Linux on a ZeroMQ bus. The layers and which may import which are
// declared below and checked when this manifest is read; docs/architecture.md explains them.
import PackageDescription

/// Strict settings applied to every Swift target: warnings are work, not noise.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// MARK: layer 1 — C libraries from Debian, reached through module maps (no pkg-config).
let cLibraries: [Target] = [
    .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ"),
    .systemLibrary(name: "CSQLite", path: "Shared/CSQLite"),
    .systemLibrary(name: "CMosquitto", path: "Shared/CMosquitto"),
    .systemLibrary(name: "CNATS", path: "Shared/CNATS"),
    .systemLibrary(name: "CCurl", path: "Shared/CCurl"),
    .systemLibrary(name: "CSodium", path: "Shared/CSodium"),
]

// MARK: layer 2 — the foundation every service stands on, with no socket in it: the wire
// protocol, geodesy, SQLite storage and the service contract (logic in, messages out, options).
let foundation: [Target] = [
    .target(name: "LocusProtocol", path: "Shared/LocusProtocol"),
    .target(name: "LocusGeo", path: "Shared/LocusGeo"),
    .target(name: "LocusStore", dependencies: ["CSQLite", "LocusProtocol"], path: "Shared/LocusStore"),
    .target(name: "LocusService", dependencies: ["LocusProtocol"], path: "Shared/LocusService"),
]

// MARK: layer 2b — doors to outside programs: plain sockets for their protocols, never the bus.
// The HTTP server parts (listener, request reader, bounded connections) the map, locus-gpsd,
// the phone door and the metrics exporter share.
let doors: [Target] = [
    .target(name: "LocusNet", dependencies: ["LocusService"], path: "Shared/LocusNet"),
    // MQTT through libmosquitto with TLS and credentials: the notifier's MQTT sink and the OwnTracks provider.
    .target(name: "LocusMQTT", dependencies: ["CMosquitto", "LocusService"], path: "Shared/LocusMQTT"),
]

// MARK: layer 3 — the transport: ZeroMQ sockets, publisher and subscriber, and the runtime that
// runs a service's logic on the bus or in a --stdio pipeline; the NATS transport it picks for a
// nats:// endpoint (docs/nats.md).
let transport: [Target] = [
    .target(name: "LocusNATS", dependencies: ["CNATS", "LocusProtocol", "LocusService"], path: "Shared/LocusNATS"),
    .target(name: "LocusBus", dependencies: ["CZeroMQ", "LocusProtocol", "LocusService", "LocusNATS"], path: "Shared/LocusBus"),
]

// MARK: layer 4 — service logic: messages in, messages out. These may import only the
// foundation, the doors (and a C library a sink or fusion's keyed hash needs); `serviceLogicMayUse` is checked below, and
// `make` builds with SwiftPM's explicit import check, so an undeclared import fails too.
let serviceLogicMayUse: Set<String> = ["LocusProtocol", "LocusGeo", "LocusStore", "LocusService", "LocusNet", "LocusMQTT", "CSQLite", "CMosquitto", "CCurl", "CSodium"]
let serviceLogic: [Target] = [
    .target(name: "LocusProvider", dependencies: ["LocusProtocol", "LocusGeo", "LocusService", "LocusStore", "LocusNet", "LocusMQTT"], path: "Services/Provider/Library"),
    .target(name: "LocusFusion", dependencies: ["CSodium", "LocusProtocol", "LocusGeo", "LocusService", "LocusStore"], path: "Services/Fusion/Library"),
    .target(name: "LocusGeofence", dependencies: ["LocusStore", "LocusProtocol", "LocusGeo", "LocusService"], path: "Services/Geofence/Library"),
    .target(name: "LocusMotion", dependencies: ["LocusProtocol", "LocusGeo", "LocusService"], path: "Services/Motion/Library"),
    .target(name: "LocusNotifier", dependencies: ["LocusStore", "LocusMQTT", "CCurl", "LocusProtocol", "LocusGeo", "LocusService"], path: "Services/Notifier/Library"),
    .target(name: "LocusGpsd", dependencies: ["LocusProtocol", "LocusService"], path: "Services/Gpsd/Library"),
    .target(name: "LocusMetrics", dependencies: ["LocusProtocol", "LocusService", "LocusNet"], path: "Services/Metrics/Library"),
]

// MARK: layer 5 — programs that are the bus or talk to it directly: the broker, the map
// server and the command line.
let busPrograms: [Target] = [
    .target(name: "LocusBroker", dependencies: ["CZeroMQ", "LocusBus", "LocusService", "LocusProtocol", "LocusStore"], path: "Services/Broker/Library"),
    .target(name: "LocusMap", dependencies: ["CZeroMQ", "LocusProtocol", "LocusService", "LocusBus", "LocusNet"], path: "Services/Map/Library"),
    .target(name: "LocusCLI", dependencies: ["LocusProtocol", "LocusGeo", "LocusService", "LocusBus", "LocusProvider", "LocusMap", "LocusNet"], path: "Services/CLI/Library"),
    // Benchmarks and evaluations: every service's logic measured beside a peer. Their own
    // program, so the command line and the services carry none of it.
    .target(name: "LocusBench", dependencies: ["CZeroMQ", "LocusProtocol", "LocusGeo", "LocusStore", "LocusService", "LocusBus", "LocusBroker", "LocusProvider", "LocusFusion", "LocusGeofence"], path: "Services/Bench/Library"),
]

// MARK: layer 6 — thin executables: a service's logic on the runtime.
let executables: [Target] = [
    .executableTarget(name: "locus-bus", dependencies: ["LocusBroker", "LocusBus", "LocusService"], path: "Services/Broker/Executable"),
    .executableTarget(name: "locus-provider", dependencies: ["LocusProvider", "LocusBus", "LocusService"], path: "Services/Provider/Executable"),
    .executableTarget(name: "locus-fusion", dependencies: ["LocusFusion", "LocusBus", "LocusService", "LocusProtocol"], path: "Services/Fusion/Executable"),
    .executableTarget(name: "locus-geofence", dependencies: ["LocusGeofence", "LocusBus", "LocusService"], path: "Services/Geofence/Executable"),
    .executableTarget(name: "locus-motion", dependencies: ["LocusMotion", "LocusBus", "LocusService"], path: "Services/Motion/Executable"),
    .executableTarget(name: "locus-notifier", dependencies: ["LocusNotifier", "LocusBus", "LocusService", "LocusProtocol"], path: "Services/Notifier/Executable"),
    .executableTarget(name: "locus-gpsd", dependencies: ["LocusGpsd", "LocusBus", "LocusService", "LocusNet", "LocusProtocol"], path: "Services/Gpsd/Executable"),
    .executableTarget(name: "locus-metrics", dependencies: ["LocusMetrics", "LocusBus", "LocusService", "LocusNet"], path: "Services/Metrics/Executable"),
    .executableTarget(name: "locus", dependencies: ["LocusCLI"], path: "Services/CLI/Executable"),
    .executableTarget(name: "locus-bench", dependencies: ["LocusBench"], path: "Services/Bench/Executable"),
]

// MARK: tests — unit tests next to what they test; integration tests (Python) start real processes.
let tests: [Target] = [
    .testTarget(name: "LocusProtocolTests", dependencies: ["LocusProtocol"], path: "Tests/LocusProtocolTests"),
    .testTarget(name: "LocusGeoTests", dependencies: ["LocusGeo"], path: "Tests/LocusGeoTests", exclude: ["Fixtures"]),
    .testTarget(name: "LocusStoreTests", dependencies: ["LocusStore", "CSQLite"], path: "Tests/LocusStoreTests"),
    .testTarget(name: "LocusNATSTests", dependencies: ["LocusNATS", "LocusService", "LocusProtocol"], path: "Tests/LocusNATSTests"),
    .testTarget(name: "LocusServiceTests", dependencies: ["LocusService", "LocusProtocol"], path: "Tests/LocusServiceTests"),
    .testTarget(name: "LocusBusTests", dependencies: ["LocusBus", "LocusService", "LocusProtocol", "CZeroMQ"], path: "Tests/LocusBusTests"),
    .testTarget(name: "LocusBrokerTests", dependencies: ["LocusBroker", "LocusBus", "LocusService", "LocusProtocol", "CZeroMQ"], path: "Tests/LocusBrokerTests"),
    .testTarget(name: "LocusProviderTests", dependencies: ["LocusProvider", "LocusService", "LocusProtocol", "LocusGeo", "LocusStore", "LocusNet"],
                path: "Tests/LocusProviderTests", exclude: ["Fixtures"]),
    .testTarget(name: "LocusFusionTests", dependencies: ["LocusFusion", "LocusProtocol", "LocusGeo", "LocusService"], path: "Tests/LocusFusionTests"),
    .testTarget(name: "LocusGeofenceTests", dependencies: ["LocusGeofence", "LocusProtocol", "LocusGeo", "LocusService", "LocusStore"], path: "Tests/LocusGeofenceTests"),
    .testTarget(name: "LocusMotionTests", dependencies: ["LocusMotion", "LocusProtocol", "LocusGeo", "LocusService"], path: "Tests/LocusMotionTests"),
    .testTarget(name: "LocusNotifierTests", dependencies: ["LocusNotifier", "LocusStore", "LocusProtocol", "LocusService"], path: "Tests/LocusNotifierTests"),
    .testTarget(name: "LocusMapTests", dependencies: ["LocusMap", "LocusNet", "LocusProtocol", "LocusService", "LocusBus", "CZeroMQ"], path: "Tests/LocusMapTests"),
    .testTarget(name: "LocusNetTests", dependencies: ["LocusNet", "LocusService"], path: "Tests/LocusNetTests"),
    .testTarget(name: "LocusMetricsTests", dependencies: ["LocusMetrics", "LocusNet", "LocusProtocol", "LocusService"], path: "Tests/LocusMetricsTests"),
    .testTarget(name: "LocusBenchTests", dependencies: ["LocusBench", "LocusGeo", "LocusFusion", "LocusProvider", "LocusProtocol", "LocusService"], path: "Tests/LocusBenchTests"),
    .testTarget(name: "LocusGpsdTests", dependencies: ["LocusGpsd", "LocusProtocol", "LocusService", "LocusProvider"], path: "Tests/LocusGpsdTests"),
]

// The layer rule, checked whenever the manifest is read: a service library that names a module
// outside the foundation (the bus, a socket library, another service) stops the build here.
for target in serviceLogic {
    for dependency in target.dependencies {
        guard case .byNameItem(let name, _) = dependency else { continue }
        precondition(serviceLogicMayUse.contains(name),
                     "Package.swift: service library \(target.name) may not depend on \(name): service logic uses only \(serviceLogicMayUse.sorted().joined(separator: ", ")) (see docs/architecture.md)")
    }
}

var targets = cLibraries + foundation + doors + transport + serviceLogic + busPrograms + executables + tests

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
        .executable(name: "locus-bench", targets: ["locus-bench"]),
        .executable(name: "locus-fusion", targets: ["locus-fusion"]),
        .executable(name: "locus-notifier", targets: ["locus-notifier"]),
        .executable(name: "locus-motion", targets: ["locus-motion"]),
        .executable(name: "locus-geofence", targets: ["locus-geofence"]),
        .executable(name: "locus-gpsd", targets: ["locus-gpsd"]),
        .executable(name: "locus-metrics", targets: ["locus-metrics"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)

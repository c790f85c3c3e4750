import Foundation
public import LocusGeo
public import LocusProtocol

/// Turns raw fixes into fused ones for a drive: the benchmark plugs in the fusion service's
/// logic; `GNSSPassthrough` stands in for it where fusion is not at hand.
public protocol FixFuser {
    /// One raw fix (GNSS or network) at `t`; the fused fixes it produced.
    mutating func fuse(_ location: Location, t: Double) -> [Location]
}

/// A fuser that passes satellite fixes through as if fused and drops network ones.
public struct GNSSPassthrough: FixFuser {
    public init() {}
    public mutating func fuse(_ location: Location, t: Double) -> [Location] {
        location.mode == "2d" || location.mode == "3d" ? [location] : []
    }
}

/// Drives a route through the simulated city in simulated time: GNSS fixes at 1 Hz (white
/// noise, `hacc` 5 m) when on, a Wi-Fi scan and the serving cell every `scanIntervalSeconds`,
/// each scan located through a `NetworkLocator` and fed to the fuser with the GNSS fixes;
/// fused fixes teach the locators. Returns one sample per scan with the truth beside it.
public struct CityDrive {
    public struct Settings: Sendable {
        public var startTime: Double
        public var seed: UInt64
        public var scanIntervalSeconds = 2.0
        public var gnss = true
        public var gnssHacc = 5.0
        public var metersPerSecond = 10.0

        public init(startTime: Double, seed: UInt64) {
            self.startTime = startTime
            self.seed = seed
        }
    }

    public struct Sample: Sendable {
        public var t: Double
        public var truth: Coordinate
        public var kind: BeaconKind
        public var fix: NetworkFix?
        /// Moved access points heard here while the database still had them where they were.
        public var staleMovedHeard = 0
        /// Of those, the ones the fix used.
        public var staleMovedUsed = 0
        /// A simple implementation's answer for comparison: the plain mean of every known
        /// beacon heard, no weights, nothing rejected.
        public var naive: Coordinate?
    }

    public let radio: CityRadio
    public let route: CityRoute
    public var settings: Settings
    private let byAddress: [MACAddress: Int]

    public init(radio: CityRadio, route: CityRoute, settings: Settings) {
        self.radio = radio
        self.route = route
        self.settings = settings
        byAddress = Dictionary(radio.plan.accessPoints.enumerated().map { ($1.bssid, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func run(wifi: NetworkLocator, cell: NetworkLocator?, fuser: inout some FixFuser) throws(BeaconDatabaseError) -> [Sample] {
        let plan = radio.plan
        let path = route.path(in: plan, metersPerSecond: settings.metersPerSecond)
        var noise = GaussianNoise(seed: settings.seed ^ 0x474E_5353)
        var radioNoise = GaussianNoise(seed: settings.seed ^ 0x5241_4449)
        var samples: [Sample] = []
        let steps = Int(path.duration.rounded(.down))
        let scanEvery = max(1, Int(settings.scanIntervalSeconds.rounded()))
        for step in 0...steps {
            let t = settings.startTime + Double(step)
            let state = path.state(at: Double(step))
            let here = plan.plane.project(state.coordinate)
            if step % scanEvery == 0 {
                let wifiScan = radio.wifiScan(east: here.east, north: here.north, t: t, random: &radioNoise)
                var sample = Sample(t: t, truth: state.coordinate, kind: .wifi, fix: try wifi.locate(wifiScan, t: t))
                try countStale(wifiScan, t: t, database: wifi.database, into: &sample)
                sample.naive = try naiveMean(wifiScan, database: wifi.database)
                samples.append(sample)
                if let fix = sample.fix, !fix.heldBack { try learn(fuser.fuse(fix.location, t: t), t: t, wifi: wifi, cell: cell) }
                if let cell {
                    let cellScan = radio.cellScan(east: here.east, north: here.north, random: &radioNoise)
                    var cellSample = Sample(t: t, truth: state.coordinate, kind: .cell, fix: try cell.locate(cellScan, t: t))
                    cellSample.naive = cellSample.fix.map { Coordinate(lat: $0.location.lat, lon: $0.location.lon) }
                    samples.append(cellSample)
                    if let fix = cellSample.fix, !fix.heldBack { try learn(fuser.fuse(fix.location, t: t), t: t, wifi: wifi, cell: cell) }
                }
            }
            if settings.gnss {
                let sigma = settings.gnssHacc / 1.5096
                let measured = plan.plane.unproject(east: here.east + sigma * noise.standard(), north: here.north + sigma * noise.standard())
                let fix = Location(device: "", source: "gnss", lat: measured.lat, lon: measured.lon, hacc: settings.gnssHacc,
                                   speed: state.speed, course: state.course, mode: "3d")
                try learn(fuser.fuse(fix, t: t), t: t, wifi: wifi, cell: cell)
            }
        }
        return samples
    }

    private func learn(_ fused: [Location], t: Double, wifi: NetworkLocator, cell: NetworkLocator?) throws(BeaconDatabaseError) {
        for fix in fused {
            try wifi.learn(from: fix, t: t)
            try cell?.learn(from: fix, t: t)
        }
    }

    private func naiveMean(_ scan: NetworkScan, database: BeaconDatabase) throws(BeaconDatabaseError) -> Coordinate? {
        var points: [(east: Double, north: Double)] = []
        for observation in scan.wifi where !observation.optedOut {
            if let record = try database.wifi(observation.bssid), !record.isMobile { points.append(radio.plan.plane.project(record.position)) }
        }
        guard !points.isEmpty else { return nil }
        let count = Double(points.count)
        return radio.plan.plane.unproject(east: points.reduce(0) { $0 + $1.east } / count, north: points.reduce(0) { $0 + $1.north } / count)
    }

    private func countStale(_ scan: NetworkScan, t: Double, database: BeaconDatabase, into sample: inout Sample) throws(BeaconDatabaseError) {
        guard t >= radio.moveTime else { return }
        let used = Set(sample.fix?.used ?? [])
        for observation in scan.wifi {
            guard let index = byAddress[observation.bssid], radio.plan.accessPoints[index].movedTo != nil,
                  let record = try database.wifi(observation.bssid) else { continue }
            let now = radio.position(of: index, at: t)
            let stored = radio.plan.plane.project(record.position)
            guard hypot(stored.east - now.east, stored.north - now.north) > 250 else { continue }
            sample.staleMovedHeard += 1
            if used.contains(.wifi(observation.bssid)) { sample.staleMovedUsed += 1 }
        }
    }
}

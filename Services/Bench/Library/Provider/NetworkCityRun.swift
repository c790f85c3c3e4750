import Foundation
import LocusFusion
import LocusGeo
import LocusProtocol
import LocusProvider

/// The simulated-city runs behind `locus bench network`: the same `NetworkLocator` the
/// `wifi` and `cell` plugins run, fed by `CityDrive`, with the fusion service's own logic
/// turning GNSS and network fixes into the fused fixes that teach the database.
enum NetworkCityRun {
    /// What one scored drive gave.
    struct Score {
        var scans = 0
        var fixes = 0
        var errors: [Double] = []
        var radii: [Double] = []
        /// Errors of fixes resting on at least three known access points.
        var errorsWithThree: [Double] = []
        var naiveErrors: [Double] = []
        var staleMovedHeard = 0
        var staleMovedUsed = 0

        var statistics: ErrorStatistics { ErrorStatistics(errors: errors, radii: radii) }
        var withThree: ErrorStatistics { ErrorStatistics(errors: errorsWithThree, radii: errorsWithThree) }
        var naive: ErrorStatistics { ErrorStatistics(errors: naiveErrors, radii: naiveErrors) }
        /// Share of moved access points, heard where the database did not have them, left out.
        var staleExcluded: Double { staleMovedHeard == 0 ? .nan : 1 - Double(staleMovedUsed) / Double(staleMovedHeard) }
    }

    struct Result {
        var plan: CityPlan
        var routeMeters: Double
        var planWifi: Score
        var planCell: Score
        var learnedWifi: Score
        var learnedCell: Score
        var learningCounters: [String: Int]
        var learnedAccessPoints: Int
        var mobileBeacons: Int
    }

    struct Options {
        var seed: UInt64 = 1
        var routeMeters = 12_000.0
        var blocks = 20
    }

    static let startTime = 1_700_000_000.0

    /// Both scenarios for one seed: the database built from the plan (and moved access points
    /// going stale half-way), then learning from an empty database on drive 1 with GNSS and
    /// scoring drive 2 without it.
    static func run(_ options: Options) throws(BeaconDatabaseError) -> Result {
        var configuration = CityPlan.Configuration()
        configuration.seed = options.seed
        configuration.blocks = options.blocks
        let plan = CityPlan(configuration)
        let route = CityRoute(plan: plan, lengthMeters: options.routeMeters, seed: options.seed)
        let duration = options.routeMeters / 10
        var drive1 = CityDrive.Settings(startTime: startTime, seed: options.seed)
        // Scenario 1: the plan as the database; access points move half-way through the drive.
        let planRadio = CityRadio(plan: plan, moveTime: startTime + duration / 2)
        let planDatabase = try database(from: plan)
        let planWifi = locator(planDatabase, .wifi, learns: false)
        let planCell = locator(planDatabase, .cell, learns: false)
        drive1.gnss = false
        var passthrough = GNSSPassthrough()
        let planSamples = try CityDrive(radio: planRadio, route: route, settings: drive1).run(wifi: planWifi, cell: planCell, fuser: &passthrough)

        // Scenario 2: learn on drive 1 (GNSS on, the move half-way), score drive 2 (GNSS off).
        let learnRadio = CityRadio(plan: plan, moveTime: startTime + duration / 2,
                                   busWindow: (startTime + duration * 0.2)...(startTime + duration * 0.35))
        let empty = try BeaconDatabase(path: ":memory:")
        let wifi = locator(empty, .wifi, learns: true)
        let cell = locator(empty, .cell, learns: true)
        var fusion = FusionFuser()
        drive1.gnss = true
        _ = try CityDrive(radio: learnRadio, route: route, settings: drive1).run(wifi: wifi, cell: cell, fuser: &fusion)
        var drive2 = CityDrive.Settings(startTime: startTime + 2 * duration, seed: options.seed ^ 0xD2)
        drive2.gnss = false
        var fusion2 = FusionFuser()
        let learnedSamples = try CityDrive(radio: learnRadio, route: route, settings: drive2).run(wifi: wifi, cell: cell, fuser: &fusion2)
        let counts = try empty.counts()
        return Result(plan: plan, routeMeters: options.routeMeters,
                      planWifi: score(planSamples, .wifi), planCell: score(planSamples, .cell),
                      learnedWifi: score(learnedSamples, .wifi), learnedCell: score(learnedSamples, .cell),
                      learningCounters: wifi.counters.merging(cell.counters.filter { $0.key.hasPrefix("learn.") }.map { ("cell." + $0.key, $0.value) }) { a, _ in a },
                      learnedAccessPoints: counts.wifi, mobileBeacons: counts.mobile)
    }

    static func locator(_ database: BeaconDatabase, _ kind: BeaconKind, learns: Bool) -> NetworkLocator {
        var settings = NetworkLocator.Settings(kind: kind)
        settings.learns = learns
        return NetworkLocator(database: database, settings: settings)
    }

    /// A database holding the plan as a well-learned one would: every access point that did
    /// not opt out where it stands at the start, placed with the error such a database has
    /// (15 m per axis), and every cell as exported.
    static func database(from plan: CityPlan) throws(BeaconDatabaseError) -> BeaconDatabase {
        let database = try BeaconDatabase(path: ":memory:")
        var noise = GaussianNoise(seed: plan.configuration.seed ^ 0x5355_5256)
        try database.transaction { () throws(BeaconDatabaseError) in
            for point in plan.accessPoints where !point.ssid.hasSuffix("_nomap") {
                let position = plan.coordinate(east: point.east + 15 * noise.standard(), north: point.north + 15 * noise.standard())
                let record = BeaconRecord(position: position, radius: 60, weight: 1, samples: 20, updated: startTime)
                try database.putWifi(point.bssid, record)
            }
            for cell in plan.cells {
                let record = BeaconRecord(position: plan.coordinate(east: cell.exported.east, north: cell.exported.north),
                                          radius: cell.exported.radius, weight: 1, samples: 50, updated: startTime)
                try database.putCell(cell.identity, record)
            }
        }
        return database
    }

    static func score(_ samples: [CityDrive.Sample], _ kind: BeaconKind) -> Score {
        var score = Score()
        for sample in samples where sample.kind == kind {
            score.scans += 1
            score.staleMovedHeard += sample.staleMovedHeard
            score.staleMovedUsed += sample.staleMovedUsed
            guard let fix = sample.fix else { continue }
            score.fixes += 1
            let error = Geodesic.distance(sample.truth, Coordinate(lat: fix.location.lat, lon: fix.location.lon))
            score.errors.append(error)
            score.radii.append(fix.location.hacc)
            if fix.known >= 3 { score.errorsWithThree.append(error) }
            if let naive = sample.naive { score.naiveErrors.append(Geodesic.distance(sample.truth, naive)) }
        }
        return score
    }
}

/// The fusion service's logic as a `FixFuser`: raw fixes in as bus messages, fused fixes out.
struct FusionFuser: FixFuser {
    var logic = FusionLogic()
    var ids = MessageIDGenerator()
    static let device = "bench"

    mutating func fuse(_ location: Location, t: Double) -> [Location] {
        var location = location
        location.device = Self.device
        let message = Message(body: .location(location), id: ids.next(), t: t, src: "bench/network")
        return logic.receive(message, topic: Topic.locationRaw(Self.device), now: t).compactMap { out in
            guard out.topic == Topic.locationFused(Self.device), case .location(let fused) = out.body else { return nil }
            return fused
        }
    }
}

import LocusGeo
public import LocusProtocol

/// A beacon as reports name it.
public enum BeaconID: Hashable, Sendable {
    case wifi(MACAddress)
    case cell(CellIdentity)
}

/// A position from one scan, with what it rests on.
public struct NetworkFix: Sendable {
    public var location: Location
    /// Beacons the scan heard that may be used (not opted out, not stale).
    public var heard: Int
    /// Of those, the ones the database knows (mobile ones excluded).
    public var known: Int
    public var used: [BeaconID]
    /// Known beacons left out as inconsistent with the rest (moved, mobile, mislearned).
    public var rejected: [BeaconID]
    /// Not to be published: the device had a good satellite-based fix moments ago.
    public var heldBack = false
}

/// The network positioning engine: scans in, positions out, and learning from good fixes
/// that coincide with a scan. Owns nothing but its database connection and the last
/// seconds of scans, so the provider plugin, the benchmark and the tests run the same code.
/// One thread.
public final class NetworkLocator {
    public struct Settings: Sendable {
        public var kind: BeaconKind
        /// The `source` word of published fixes (`wifi`, `cell`).
        public var sourceName: String
        /// Whether good fixes update the database (`--no-learn` turns it off).
        public var learns = true
        /// A fused fix teaches only when its 68 % radius, grown by its speed times the time
        /// between fix and scan, is at most this.
        public var learnMaximumHacc = 20.0
        /// A fix and a scan coincide when at most this far apart in time.
        public var learnWindowSeconds = 1.5
        /// While a good satellite-based fused fix is at most this old, network fixes are held
        /// back: they add nothing then, and a database still learning the street the device
        /// is on places every beacon behind it, which would pull the fused track back.
        public var standAsideSeconds = 5.0
        /// Access points iw last heard longer ago than this are left out (`scan dump` keeps
        /// results for up to 30 s, and a moving device has left them behind).
        public var maximumObservationAgeSeconds = 15.0
        public var estimator: NetworkEstimator
        public var learning: BeaconLearning

        public init(kind: BeaconKind, sourceName: String? = nil, pathLoss: PathLossModel = .wifiTypical) {
            self.kind = kind
            self.sourceName = sourceName ?? kind.rawValue
            estimator = NetworkEstimator(kind: kind, pathLoss: pathLoss)
            learning = BeaconLearning(kind: kind, pathLoss: pathLoss)
        }
    }

    public let database: BeaconDatabase
    public var settings: Settings
    public private(set) var counters: [String: Int] = [:]
    private var recent: [RecentScan] = []
    private var lastGoodFix = -Double.infinity

    struct RecentScan {
        var t: Double
        var sightings: [Sighting]
        var learned = false
    }

    /// One usable beacon of a scan: a cell may be any of its candidate identities.
    struct Sighting {
        var id: BeaconID
        var candidates: [CellIdentity] = []
        var signal: Double?
    }

    public init(database: BeaconDatabase, settings: Settings) {
        self.database = database
        self.settings = settings
    }

    /// The position one scan (taken at `t`) gives, or nil when it heard no known beacon.
    public func locate(_ scan: NetworkScan, t: Double) throws(BeaconDatabaseError) -> NetworkFix? {
        count("scans")
        let sightings = usableSightings(scan)
        remember(RecentScan(t: t, sightings: sightings))
        var beacons: [NetworkEstimator.Beacon] = []
        var ids: [BeaconID] = []
        for sighting in sightings {
            guard let (id, record) = try lookup(sighting), !record.isMobile else { continue }
            beacons.append(NetworkEstimator.Beacon(position: record.position, radius: record.radius, samples: record.samples,
                                                   signalDBm: sighting.signal))
            ids.append(id)
        }
        guard let estimate = settings.estimator.estimate(beacons) else {
            count("unknownScans")
            return nil
        }
        count("fixes")
        count("rejectedBeacons", estimate.rejected.count)
        let location = Location(device: "", source: settings.sourceName, lat: estimate.position.lat, lon: estimate.position.lon,
                                hacc: estimate.hacc, mode: "approx")
        let heldBack = t - lastGoodFix <= settings.standAsideSeconds
        if heldBack { count("heldBack") }
        return NetworkFix(location: location, heard: sightings.count, known: beacons.count,
                          used: estimate.used.map { ids[$0] }, rejected: estimate.rejected.map { ids[$0] }, heldBack: heldBack)
    }

    /// Takes a fused fix at `t`. A good one (satellite-based, mode `2d`/`3d`, within
    /// `learnMaximumHacc`) holds network fixes back for a few seconds, and teaches the
    /// beacons of a recent scan that coincides with it; returns how many were updated.
    /// Fixes that rest on network positions (mode `approx`), cached or dead-reckoned ones
    /// never teach: the database would learn itself.
    @discardableResult
    public func learn(from fix: Location, t: Double) throws(BeaconDatabaseError) -> Int {
        guard fix.mode == "2d" || fix.mode == "3d", fix.age == nil, fix.hacc.isFinite, fix.hacc <= settings.learnMaximumHacc,
              Coordinate(lat: fix.lat, lon: fix.lon).isValid, t.isFinite else { return 0 }
        lastGoodFix = max(lastGoodFix, t)
        guard settings.learns else { return 0 }
        let speed = fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? 0
        var best: Int?
        for index in recent.indices where !recent[index].learned {
            let apart = abs(recent[index].t - t)
            guard apart <= settings.learnWindowSeconds, fix.hacc + speed * apart <= settings.learnMaximumHacc else { continue }
            if best.map({ apart < abs(recent[$0].t - t) }) ?? true { best = index }
        }
        guard let best else { return 0 }
        recent[best].learned = true
        let scan = recent[best]
        let uncertainty = fix.hacc + speed * abs(scan.t - t)
        let position = Coordinate(lat: fix.lat, lon: fix.lon)
        try database.transaction { () throws(BeaconDatabaseError) in
            for sighting in scan.sightings {
                let (id, record): (BeaconID, BeaconRecord?) = try lookup(sighting) ?? (sighting.id, nil)
                let (updated, outcome) = settings.learning.update(record, seenAt: position, hacc: uncertainty,
                                                                  signalDBm: sighting.signal, t: t)
                count("learn." + outcome.rawValue)
                if outcome == .ignoredMobile { continue }
                switch id {
                case .wifi(let bssid): try database.putWifi(bssid, updated)
                case .cell(let identity): try database.putCell(identity, updated)
                }
            }
        }
        count("learnedScans")
        return scan.sightings.count
    }

    /// The scan's beacons that may be used: opted-out access points (`_nomap`, locally
    /// administered addresses) are dropped here, before anything could store them.
    func usableSightings(_ scan: NetworkScan) -> [Sighting] {
        var out: [Sighting] = []
        var seen = Set<MACAddress>()
        for observation in scan.wifi {
            if observation.optedOut {
                count("optedOut")
                continue
            }
            if let age = observation.ageSeconds, age > settings.maximumObservationAgeSeconds {
                count("stale")
                continue
            }
            guard seen.insert(observation.bssid).inserted else { continue }
            out.append(Sighting(id: .wifi(observation.bssid), signal: observation.signalDBm))
        }
        for cell in scan.cells {
            let candidates = cell.candidates
            guard let first = candidates.first else { continue }
            out.append(Sighting(id: .cell(first), candidates: candidates))
        }
        return out
    }

    /// The stored record of a sighting; for a cell, the first of its candidate identities
    /// the database knows (the sighting's own identity when none is known).
    private func lookup(_ sighting: Sighting) throws(BeaconDatabaseError) -> (BeaconID, BeaconRecord)? {
        switch sighting.id {
        case .wifi(let bssid):
            return try database.wifi(bssid).map { (sighting.id, $0) }
        case .cell:
            for candidate in sighting.candidates {
                if let record = try database.cell(candidate) { return (.cell(candidate), record) }
            }
            return nil
        }
    }

    private func remember(_ scan: RecentScan) {
        recent.removeAll { $0.t < scan.t - 10 || $0.t > scan.t + 10 }
        recent.append(scan)
        if recent.count > 32 { recent.removeFirst(recent.count - 32) }
    }

    private func count(_ name: String, _ amount: Int = 1) {
        guard amount != 0 else { return }
        counters[name, default: 0] += amount
    }
}

public import LocusGeo
public import LocusProtocol

/// Every monitored region, checked on the way in, with a spatial index so the regions a
/// fix must be tested against are found without looking at the far-away ones.
///
/// Boxes are filed widened by `indexMarginMeters`: a fix whose confidence margin is
/// within that finds every region it could be inside or uncertain about with a point
/// lookup; any region not returned is outside with high confidence.
public struct RegionStore: Sendable {
    public let configuration: GeofenceConfiguration
    private var regions: [RegionKey: MonitoredRegion] = [:]
    private var countByOwner: [String: Int] = [:]
    private var index = SpatialIndex<RegionKey>()
    private var wideIndex = SpatialIndex<RegionKey>()
    /// The generation the next add receives.
    public private(set) var nextGeneration = 1

    public init(configuration: GeofenceConfiguration) {
        self.configuration = configuration
    }

    /// How an accepted add changed the store.
    public struct Added: Sendable, Equatable {
        public var monitored: MonitoredRegion
        /// True when the id was already monitored.
        public var replaced: Bool
        /// True when a replacement changed the geometry or the watched devices, so
        /// states derived from the old one no longer hold.
        public var changed: Bool
    }

    public var count: Int { regions.count }

    public func region(_ key: RegionKey) -> MonitoredRegion? { regions[key] }

    public func regions(of owner: String) -> [MonitoredRegion] {
        regions.values.filter { $0.key.owner == owner }.sorted { $0.key.id < $1.key.id }
    }

    public var all: [MonitoredRegion] { Array(regions.values) }

    /// Checks and files a region; re-adding an id replaces it (Core Location semantics).
    public mutating func add(_ region: Region, owner: String) throws(RegionRejection) -> Added {
        let key = RegionKey(owner: owner, id: region.id)
        let previous = regions[key]
        if previous == nil, countByOwner[owner, default: 0] >= configuration.regionsPerOwner {
            throw RegionRejection(.tooManyRegions, "owner \(owner) already monitors \(configuration.regionsPerOwner) regions")
        }
        let (shape, effective) = try RegionShapeConversion.shape(from: region.shape, configuration: configuration)
        let changed = previous.map { $0.shape != shape || $0.region.devices != region.devices } ?? true
        let generation = changed ? nextGeneration : previous?.generation ?? nextGeneration
        if changed { nextGeneration += 1 }
        let monitored = MonitoredRegion(key: key, region: region, shape: shape, effectiveRadiusMeters: effective, generation: generation)
        restore(monitored)
        return Added(monitored: monitored, replaced: previous != nil, changed: changed)
    }

    /// Files an already checked region (from the database at start-up, or from `add`).
    public mutating func restore(_ monitored: MonitoredRegion) {
        if regions.updateValue(monitored, forKey: monitored.key) == nil {
            countByOwner[monitored.key.owner, default: 0] += 1
        }
        nextGeneration = max(nextGeneration, monitored.generation + 1)
        let box = monitored.shape.boundingBox
        index.insert(monitored.key, box: box.expanded(byMeters: configuration.indexMarginMeters))
        wideIndex.insert(monitored.key, box: box)
    }

    @discardableResult
    public mutating func remove(_ key: RegionKey) -> MonitoredRegion? {
        guard let removed = regions.removeValue(forKey: key) else { return nil }
        countByOwner[key.owner, default: 1] -= 1
        if countByOwner[key.owner] == 0 { countByOwner[key.owner] = nil }
        index.remove(key)
        wideIndex.remove(key)
        return removed
    }

    /// Appends the keys of every region that may lie within `marginMeters` of `p`; every
    /// other region is farther than that.
    public func candidates(near p: Coordinate, marginMeters: Double, into result: inout [RegionKey]) {
        if marginMeters <= configuration.indexMarginMeters {
            index.candidates(containing: p, into: &result)
        } else {
            wideIndex.candidates(near: p, withinMeters: marginMeters, into: &result)
        }
    }
}

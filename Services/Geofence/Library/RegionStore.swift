public import LocusGeo
public import LocusProtocol

/// Every monitored region, checked on the way in, with a spatial index so the regions a
/// fix must be tested against are found without looking at the far-away ones.
///
/// Boxes are filed widened by `indexMarginMeters`: a fix whose confidence margin is
/// within that finds every region it could be inside or uncertain about with a point
/// lookup; any region not returned is outside with high confidence.
///
/// Each region lives in a numbered slot (`MonitoredRegion.slot`): the per-fix path works on
/// slot numbers only, so it never hashes the owner and id strings. A freed slot is reused;
/// the region generation tells a new occupant from the old one.
public struct RegionStore: Sendable {
    public let configuration: GeofenceConfiguration
    private var slots: [FiledRegion?] = []
    /// The per-fix fields of each slot's region, beside `slots` (see `RegionEssentials`).
    private var essentials: [RegionEssentials] = []
    /// A polygon's grid header by slot (nil for circles and empty slots): the per-fix
    /// path tests polygons through it without touching the filed region.
    private var probes: [PolygonProbe?] = []
    private var slotByKey: [RegionKey: Int] = [:]
    private var freeSlots: [Int] = []
    private var countByOwner: [String: Int] = [:]
    private var index = SpatialIndex<Int>()
    private var wideIndex = SpatialIndex<Int>()
    /// Slots of regions with an `expires` time, and the earliest of those times (so a tick
    /// with nothing due costs one comparison).
    private var expiringSlots = Set<Int>()
    public private(set) var nextExpiry = Double.infinity
    /// Regions with `activeHours`, by slot: the schedule and the window the region's
    /// generation belongs to.
    private var schedules: [Int: SlotSchedule] = [:]
    /// The generation the next add receives.
    public private(set) var nextGeneration = 1
    /// Moves on every add, replacement and removal: a device's `QuietZone` holds only
    /// while the regions it was computed against are the ones there are.
    public private(set) var revision = 0

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

    public var count: Int { slotByKey.count }

    public func region(_ key: RegionKey) -> MonitoredRegion? { slotByKey[key].flatMap { slots[$0]?.monitored } }

    /// The region in `slot`, if the slot is occupied.
    public func region(inSlot slot: Int) -> MonitoredRegion? { filed(inSlot: slot)?.monitored }

    /// The region in `slot` by reference: the per-fix path reads a few fields of it, and
    /// copying the whole region (definition, shape, device set) per candidate cost more
    /// than the geometry test.
    @inline(__always)
    public func filed(inSlot slot: Int) -> FiledRegion? { slot < slots.count ? slots[slot] : nil }

    /// What the per-fix path needs of the region in `slot`; `RegionEssentials.vacant` for an empty slot.
    @inline(__always)
    public func essentials(inSlot slot: Int) -> RegionEssentials {
        slot < essentials.count ? essentials[slot] : .vacant
    }

    /// The grid header of the polygon in `slot`, valid while the slot's region is filed.
    @inline(__always)
    public func probe(inSlot slot: Int) -> PolygonProbe? { slot < probes.count ? probes[slot] : nil }

    public func regions(of owner: String) -> [MonitoredRegion] {
        guard countByOwner[owner] != nil else { return [] }
        var found: [MonitoredRegion] = []
        for case let filed? in slots where filed.monitored.key.owner == owner { found.append(filed.monitored) }
        return found.sorted { $0.key.id < $1.key.id }
    }

    public var all: [MonitoredRegion] { slots.compactMap { $0?.monitored } }

    /// Checks and files a region; re-adding an id replaces it (Core Location semantics).
    /// `t`: when it was added, which decides whether its `activeHours` are under way.
    public mutating func add(_ region: Region, owner: String, at t: Double = 0) throws(RegionRejection) -> Added {
        let schedule = try region.activeHours.map { hours throws(RegionRejection) in try ActiveSchedule(hours) }
        let key = RegionKey(owner: owner, id: region.id)
        let previous = self.region(key)
        if previous == nil, countByOwner[owner, default: 0] >= configuration.regionsPerOwner {
            throw RegionRejection(.tooManyRegions, "owner \(owner) already monitors \(configuration.regionsPerOwner) regions")
        }
        let (shape, effective) = try RegionShapeConversion.shape(from: region.shape, configuration: configuration)
        let changed = previous.map { $0.shape != shape || $0.region.devices != region.devices } ?? true
        let generation = changed ? nextGeneration : previous?.generation ?? nextGeneration
        if changed { nextGeneration += 1 }
        let monitored = restore(MonitoredRegion(key: key, region: region, shape: shape, effectiveRadiusMeters: effective,
                                                generation: generation))
        if let schedule {
            // Added during its hours: the first decision is silent, as for any region.
            let current = changed ? nil : schedules[monitored.slot]
            schedules[monitored.slot] = SlotSchedule(schedule: schedule, window: current?.window ?? schedule.window(at: t),
                                                     announcing: current?.announcing)
        }
        return Added(monitored: monitored, replaced: previous != nil, changed: changed)
    }

    /// Files an already checked region (from the database at start-up, or from `add`).
    /// Returns the region as filed, with its slot set.
    @discardableResult
    public mutating func restore(_ monitored: MonitoredRegion) -> MonitoredRegion {
        revision += 1
        var monitored = monitored
        if let slot = slotByKey[monitored.key] {
            monitored.slot = slot
        } else {
            monitored.slot = freeSlots.popLast() ?? slots.count
            if monitored.slot == slots.count {
                slots.append(nil)
                essentials.append(.vacant)
                probes.append(nil)
            }
            slotByKey[monitored.key] = monitored.slot
            countByOwner[monitored.key.owner, default: 0] += 1
        }
        slots[monitored.slot] = FiledRegion(monitored)
        essentials[monitored.slot] = RegionEssentials(monitored)
        probes[monitored.slot] = monitored.shape.polygonIndex?.probe
        if monitored.region.activeHours == nil {
            schedules[monitored.slot] = nil
        } else if schedules[monitored.slot] == nil, let hours = monitored.region.activeHours, let schedule = try? ActiveSchedule(hours) {
            // Loaded from the database: the window under way is not known, so the first
            // fix in one reports the state once.
            schedules[monitored.slot] = SlotSchedule(schedule: schedule, window: nil, announcing: nil)
        }
        if let expires = monitored.region.expires {
            expiringSlots.insert(monitored.slot)
            nextExpiry = min(nextExpiry, expires)
        } else if expiringSlots.remove(monitored.slot) != nil {
            refreshNextExpiry()
        }
        nextGeneration = max(nextGeneration, monitored.generation + 1)
        let box = monitored.shape.boundingBox
        index.insert(monitored.slot, box: box.expanded(byMeters: configuration.indexMarginMeters))
        wideIndex.insert(monitored.slot, box: box)
        return monitored
    }

    @discardableResult
    public mutating func remove(_ key: RegionKey) -> MonitoredRegion? {
        guard let slot = slotByKey.removeValue(forKey: key), let removed = slots[slot]?.monitored else { return nil }
        revision += 1
        slots[slot] = nil
        essentials[slot] = .vacant
        probes[slot] = nil
        schedules[slot] = nil
        if expiringSlots.remove(slot) != nil { refreshNextExpiry() }
        freeSlots.append(slot)
        countByOwner[key.owner, default: 1] -= 1
        if countByOwner[key.owner] == 0 { countByOwner[key.owner] = nil }
        index.remove(slot)
        wideIndex.remove(slot)
        return removed
    }

    /// What a fix at time `t` makes of a scheduled region.
    public enum ScheduleStep: Sendable, Equatable {
        /// Outside its hours (or a fix from a window already over): not evaluated.
        case inactive
        /// In the window its generation belongs to.
        case active
        /// The first fix of a new window: the region now has a new generation (returned),
        /// so every device's state starts over and is reported once (`announces`).
        case activated(MonitoredRegion)
    }

    public mutating func scheduleStep(slot: Int, t: Double) -> ScheduleStep {
        guard var entry = schedules[slot], let window = entry.schedule.window(at: t) else { return .inactive }
        if let current = entry.window {
            if window == current { return .active }
            if window < current { return .inactive }
        }
        guard let filed = slots[slot]?.monitored else { return .inactive }
        var monitored = filed
        monitored.generation = nextGeneration
        nextGeneration += 1
        let refiled = restore(monitored)
        entry.window = window
        entry.announcing = refiled.generation
        schedules[slot] = entry
        return .activated(refiled)
    }

    /// True when the region's first decision for a device is reported (`state`, cause
    /// `activated`): its generation began with a new window of its hours.
    @inline(__always)
    public func announces(slot: Int, generation: Int) -> Bool {
        schedules[slot]?.announcing == generation
    }

    /// Regions whose `expires` time is at or before `now`, in key order.
    public func expired(by now: Double) -> [MonitoredRegion] {
        guard nextExpiry <= now else { return [] }
        return expiringSlots.compactMap { slots[$0]?.monitored }.filter { ($0.region.expires ?? .infinity) <= now }.sorted { $0.key < $1.key }
    }

    private mutating func refreshNextExpiry() {
        nextExpiry = expiringSlots.compactMap { slots[$0]?.monitored.region.expires }.min() ?? .infinity
    }

    /// Appends the keys of every region that may lie within `marginMeters` of `p`; every
    /// other region is farther than that.
    public func candidates(near p: Coordinate, marginMeters: Double, into result: inout [RegionKey]) {
        var found: [Int] = []
        candidateSlots(near: p, marginMeters: marginMeters, into: &found)
        result.append(contentsOf: found.compactMap { slots[$0]?.monitored.key })
    }

    /// `candidates(near:marginMeters:into:)` as slot numbers, without touching any string:
    /// the form the per-fix path uses. Returns the metres from `p` beyond which every
    /// region not appended lies.
    @inline(__always) @discardableResult
    public func candidateSlots(near p: Coordinate, marginMeters: Double, into result: inout [Int]) -> Double {
        if marginMeters <= configuration.indexMarginMeters {
            index.candidates(containing: p, into: &result)
            return configuration.indexMarginMeters
        } else {
            wideIndex.candidates(near: p, withinMeters: marginMeters, into: &result)
            return marginMeters
        }
    }
}

/// A scheduled region's hours and where it stands in them.
struct SlotSchedule: Sendable {
    var schedule: ActiveSchedule
    /// The window (see `ActiveSchedule.window(at:)`) the current generation belongs to.
    var window: Int?
    /// The generation whose first decisions are reported.
    var announcing: Int?
}

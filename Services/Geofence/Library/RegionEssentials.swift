public import LocusGeo

/// What the per-fix path reads of every candidate region, kept by slot in one contiguous
/// array: a fix touches this small record per candidate and reaches the filed region
/// (definition, strings, device set) only to report an event, write a row, or test a
/// polygon or a device list. At fleet scale each region a fix looks at is a cache miss,
/// so the fewer lines a candidate costs, the more fixes a core handles.
///
/// Field order is the layout: the 56-byte circle first, the flags in its tag's padding,
/// 80 bytes in all.
public struct RegionEssentials: Sendable {
    /// The circle's distance, or nil for a polygon (tested on the filed region).
    public let circle: CircleDistance?
    /// False for an empty slot.
    public let isOccupied: Bool
    /// False when the region lists the devices it watches (checked on the filed region).
    public let watchesEveryDevice: Bool
    public let notifyOnEntry: Bool
    public let notifyOnExit: Bool
    /// True when the region has `activeHours` (asked on the store per fix).
    public let scheduled: Bool
    public let generation: Int
    private let dwell: PackedOptionalDouble

    /// An empty slot.
    public static let vacant = RegionEssentials()

    private init() {
        circle = nil
        isOccupied = false
        watchesEveryDevice = false
        notifyOnEntry = false
        notifyOnExit = false
        scheduled = false
        generation = 0
        dwell = PackedOptionalDouble(nil)
    }

    init(_ monitored: MonitoredRegion) {
        if case .circle(let shape) = monitored.shape { circle = shape.distance } else { circle = nil }
        isOccupied = true
        watchesEveryDevice = monitored.devices == nil
        notifyOnEntry = monitored.region.notifyOnEntry
        notifyOnExit = monitored.region.notifyOnExit
        scheduled = monitored.region.activeHours != nil
        generation = monitored.generation
        dwell = PackedOptionalDouble(monitored.region.dwell)
    }

    /// Seconds inside before a `dwell` event, nil for none.
    public var dwellSeconds: Double? { dwell.value }
}

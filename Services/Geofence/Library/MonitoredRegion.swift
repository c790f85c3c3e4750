public import LocusGeo
public import LocusProtocol

/// Names a region across owners: ids are unique per owner only.
public struct RegionKey: Sendable, Hashable, Comparable {
    public var owner: String
    public var id: String

    public init(owner: String, id: String) {
        self.owner = owner
        self.id = id
    }

    public static func < (lhs: RegionKey, rhs: RegionKey) -> Bool {
        (lhs.owner, lhs.id) < (rhs.owner, rhs.id)
    }
}

/// A region as the service monitors it: the client's definition (kept verbatim for
/// `region.list` and export) beside the geometry actually tested.
public struct MonitoredRegion: Sendable, Equatable {
    public var key: RegionKey
    /// What the client sent.
    public var region: Region
    /// The geometry tested, with a small circle already widened.
    public var shape: Shape
    /// Set when the circle was widened to the minimum radius.
    public var effectiveRadiusMeters: Double?
    /// Increases with every add, so a device can tell whether it has been checked against
    /// this region yet (see `DeviceTracker.checkedThrough`).
    public var generation: Int
    /// The devices watched; nil means every device.
    public var devices: Set<String>?
    /// Where `RegionStore` files it (set when filed): the per-fix path's handle.
    public var slot = -1

    public init(key: RegionKey, region: Region, shape: Shape, effectiveRadiusMeters: Double?, generation: Int) {
        self.key = key
        self.region = region
        self.shape = shape
        self.effectiveRadiusMeters = effectiveRadiusMeters
        self.generation = generation
        self.devices = region.devices.map(Set.init)
    }

    public func watches(_ device: String) -> Bool {
        devices?.contains(device) ?? true
    }
}

/// A filed region, shared by reference: immutable once filed (a replacement files a new one).
public final class FiledRegion: Sendable {
    public let monitored: MonitoredRegion

    init(_ monitored: MonitoredRegion) {
        self.monitored = monitored
    }
}

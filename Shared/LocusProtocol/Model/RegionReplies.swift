/// Replies the geofence publishes on `region.state.<owner>`; `re` is the id of the command answered.

/// A region is now monitored. Type "region.added".
public struct RegionAdded: Sendable, Equatable {
    public var owner: String
    public var region: Region
    public var re: String?
    /// The radius actually monitored in metres when the geofence widened a small circle.
    public var effectiveRadius: Double?

    public init(owner: String, region: Region, re: String? = nil, effectiveRadius: Double? = nil) {
        self.owner = owner
        self.region = region
        self.re = re
        self.effectiveRadius = effectiveRadius
    }
}

/// A region is no longer monitored. Type "region.removed".
public struct RegionRemoved: Sendable, Equatable {
    public var owner: String
    public var regionId: String
    public var re: String?

    public init(owner: String, regionId: String, re: String? = nil) {
        self.owner = owner
        self.regionId = regionId
        self.re = re
    }
}

/// Why a region could not be monitored (Core Location's `monitoringDidFailFor`).
/// `storage`: the service could not save the change (disk full, read-only…); the region's
/// earlier state stays in force and the command may be sent again.
public enum RegionFailureCode: String, Sendable, Equatable, CaseIterable {
    case radiusTooSmall, radiusTooLarge, tooManyRegions, invalidShape, notAuthorized
    /// `activeHours` names a time zone this machine does not know.
    case invalidSchedule
    case storage
}

/// Monitoring a region failed. Type "region.failed".
public struct RegionFailed: Sendable, Equatable {
    public var owner: String
    public var regionId: String
    public var code: RegionFailureCode
    /// For a person.
    public var message: String
    public var re: String?

    public init(owner: String, regionId: String, code: RegionFailureCode, message: String, re: String? = nil) {
        self.owner = owner
        self.regionId = regionId
        self.code = code
        self.message = message
        self.re = re
    }
}

/// The owner's regions. Type "region.list" with a `regions` field.
public struct RegionListReply: Sendable, Equatable {
    public var owner: String
    public var regions: [Region]
    public var re: String?

    public init(owner: String, regions: [Region], re: String? = nil) {
        self.owner = owner
        self.regions = regions
        self.re = re
    }
}

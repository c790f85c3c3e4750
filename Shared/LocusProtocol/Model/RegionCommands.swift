/// Commands clients send on `region.cmd`. The geofence replies on `region.state.<owner>`
/// with the command's envelope id as `re`.

/// Starts (or replaces) monitoring of a region. Type "region.add".
public struct RegionAdd: Sendable, Equatable {
    public var owner: String
    public var region: Region

    public init(owner: String, region: Region) {
        self.owner = owner
        self.region = region
    }
}

/// Stops monitoring a region. Type "region.remove".
public struct RegionRemove: Sendable, Equatable {
    public var owner: String
    public var regionId: String

    public init(owner: String, regionId: String) {
        self.owner = owner
        self.regionId = regionId
    }
}

/// Asks for the owner's regions. Type "region.list" without a `regions` field.
public struct RegionListRequest: Sendable, Equatable {
    public var owner: String

    public init(owner: String) {
        self.owner = owner
    }
}

/// Asks for the current state of regions; answered with `region.event` events of kind `state`.
/// Type "region.requestState". Nil fields mean all regions / all devices.
public struct RegionRequestState: Sendable, Equatable {
    public var owner: String
    public var regionId: String?
    public var device: String?

    public init(owner: String, regionId: String? = nil, device: String? = nil) {
        self.owner = owner
        self.regionId = regionId
        self.device = device
    }
}

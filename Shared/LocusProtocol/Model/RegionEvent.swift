/// The fix that decided an event: enough for a reader to judge it without the stream.
public struct FixRef: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    /// Metres, > 0.
    public var hacc: Double
    /// Fix time, seconds since the Unix epoch.
    public var t: Double

    public init(lat: Double, lon: Double, hacc: Double, t: Double) {
        self.lat = lat
        self.lon = lon
        self.hacc = hacc
        self.t = t
    }
}

public enum RegionEventKind: String, Sendable, Equatable, CaseIterable {
    case enter, exit, dwell
    /// An answer to `region.requestState`, not a transition.
    case state
    /// A device left a corridor part-way along its route (sent after its `exit`).
    case deviated
}

public enum RegionState: String, Sendable, Equatable, CaseIterable {
    case inside, outside, unknown
}

public enum RegionEventCause: String, Sendable, Equatable, CaseIterable {
    /// The device crossed the boundary.
    case crossing
    /// The first decision after the region was added.
    case initial
    /// Re-derived after a restart.
    case recovered
    /// Asked for with `region.requestState`.
    case requested
    /// Found in fixes that arrived after newer ones (a device uploading what it buffered):
    /// a crossing in the past, reported when its fixes came in.
    case late
    /// The region's `expires` time came: the exit of a device still inside.
    case expired
    /// The region's `activeHours` began again: the device's state then (a `state` event).
    case activated
}

/// A region transition or state report. Type "region.event" on `region.event.<owner>`.
public struct RegionEvent: Sendable, Equatable {
    public var owner: String
    public var regionId: String
    public var device: String
    public var event: RegionEventKind
    public var state: RegionState
    public var cause: RegionEventCause
    public var location: FixRef
    /// Estimated time the boundary was crossed, seconds since the Unix epoch.
    public var crossingTime: Double?
    /// The command id this answers (for `state` events).
    public var re: String?
    /// Corridors only: metres along the route to its point nearest the fix.
    public var progress: Double?
    /// Corridors only: metres from the fix to the route.
    public var offRoute: Double?

    public init(
        owner: String, regionId: String, device: String, event: RegionEventKind, state: RegionState,
        cause: RegionEventCause, location: FixRef, crossingTime: Double? = nil, re: String? = nil,
        progress: Double? = nil, offRoute: Double? = nil
    ) {
        self.owner = owner
        self.regionId = regionId
        self.device = device
        self.event = event
        self.state = state
        self.cause = cause
        self.location = location
        self.crossingTime = crossingTime
        self.re = re
        self.progress = progress
        self.offRoute = offRoute
    }
}

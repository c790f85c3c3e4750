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

    public init(
        owner: String, regionId: String, device: String, event: RegionEventKind, state: RegionState,
        cause: RegionEventCause, location: FixRef, crossingTime: Double? = nil, re: String? = nil
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
    }
}

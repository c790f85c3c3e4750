public import LocusProtocol

/// What the service knows about one device and one region: the committed state (the one
/// events have reported), the pending change, the dwell clock and the last fix's
/// distance for crossing interpolation.
public struct RegionTrack: Sendable, Equatable {
    // Stored fields are ordered for a 64-byte layout (a device reads all its tracks per fix).
    /// The region generation this track was derived from; a replaced shape starts over.
    public var generation: Int
    private var lastTime: PackedOptionalDouble
    private var lastDistance: PackedOptionalDouble
    private var crossing: PackedOptionalDouble
    public var dwell = DwellTimer()
    public var state: RegionState
    /// How the current stay inside began (for dwell events).
    public var entryCause: RegionEventCause
    public var debounce = Debounce()

    public var lastFixTime: Double? {
        get { lastTime.value }
        set { lastTime.value = newValue }
    }

    public var lastSignedDistanceMeters: Double? {
        get { lastDistance.value }
        set { lastDistance.value = newValue }
    }

    /// Latest estimate of when the boundary was crossed towards the pending state.
    public var crossingTime: Double? {
        get { crossing.value }
        set { crossing.value = newValue }
    }

    public init(generation: Int, state: RegionState, entryCause: RegionEventCause = .initial) {
        self.generation = generation
        self.state = state
        self.entryCause = entryCause
        lastTime = PackedOptionalDouble(nil)
        lastDistance = PackedOptionalDouble(nil)
        crossing = PackedOptionalDouble(nil)
    }
}

/// One device: its tracks for nearby regions and the last fix. Regions without a track
/// are outside with high confidence if the device has been checked against them
/// (`generation <= checkedThrough`), unknown otherwise.
public struct DeviceTracker: Sendable, Equatable {
    /// Explicit tracks, by region slot.
    public var tracks = TrackList()
    /// Every region with a generation up to this one has been checked against a fix.
    public var checkedThrough = 0
    public var lastFix: FixRef?
    /// Loaded from the database and not yet reconciled with a fix after a restart.
    public var recovering = false
    /// Where the next fixes change nothing, from the last full evaluation (nil: none).
    var quiet: QuietZone?
    /// Fixes were taken in the quiet zone since the tracks were last evaluated, so the
    /// distances they remember are from an earlier fix than `lastFix`.
    var tracksLagLastFix = false

    public init() {}

    /// The committed state for a region, explicit or implied.
    public func state(for region: MonitoredRegion) -> RegionState {
        state(slot: region.slot, generation: region.generation)
    }

    /// `state(for:)` from the two numbers it needs.
    public func state(slot: Int, generation: Int) -> RegionState {
        if let track = tracks[slot], track.generation == generation { return track.state }
        return generation <= checkedThrough ? .outside : .unknown
    }
}

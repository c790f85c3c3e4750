public import LocusGeo
public import LocusProtocol

/// Everything fusion keeps about one device, as values: the filter and the per-stream state.
/// `FusionLogic` keeps these in one array and moves a device's out and back per fix, so none of
/// it is copied; its topics are kept beside it (`DeviceTopics`), out of what a fix moves.
public struct DeviceState: Sendable {
    public var filter: DeviceFilter
    public var policy: OutputPolicy
    public var screen: FixScreen
    public var significant: SignificantChange
    public var visits: VisitDetector
    /// The device's secret approx grid shift and current period's jitter (nil without an approx stream).
    public var approxOffsets: ApproximateLocation.Offsets?
    /// The last approximate point published and its period, so one period yields one message.
    public var lastApprox: (coordinate: Coordinate, period: Int64)?
    public var lastStoredT = -Double.infinity
    /// Fix time of the last location saved or waiting to be saved.
    public var unsavedFix: LastKnownStore.Entry?
    public var lastFloodReport = -Double.infinity
    /// Recent (source, t, lat, lon) keys, to drop a fix that arrives twice under different ids.
    public var recentFixes = RecentFixes()
    public var lastAltitude: (value: Double, accuracy: Double?)?
    /// Where the device's fixes stand in time: newest real fix, invented ones, its clock.
    public var timeline = FixTimeline()
    /// The trust scale of the device's last source, looked up again only when the source changes.
    private var trust: (source: String, scale: Double)?

    public init(device: String, configuration: FusionConfiguration) {
        filter = DeviceFilter(settings: configuration.filter)
        policy = OutputPolicy(fallbackAfterSeconds: configuration.desiredAccuracyFallbackSeconds)
        screen = configuration.screen
        significant = SignificantChange(minimumDistanceMeters: configuration.significantDistanceMeters,
                                        minimumIntervalSeconds: configuration.significantIntervalSeconds)
        visits = VisitDetector(radiusMeters: configuration.visitRadiusMeters, minimumStaySeconds: configuration.visitMinimumStaySeconds)
        approxOffsets = configuration.approx?.offsets(device: device)
    }

    /// `trust.scale(for: source)`, kept for the device's current source.
    public mutating func trustScale(for source: String, in trust: SourceTrust) -> Double {
        if let cached = self.trust, cached.source == source { return cached.scale }
        let scale = trust.scale(for: source)
        self.trust = (source, scale)
        return scale
    }
}

/// One device's output topics, built once when the device is first seen instead of per fix.
public struct DeviceTopics: Sendable {
    /// Where the device's raw fixes arrive, to recognise them by one comparison.
    public let raw: String
    /// Whether the device id is ASCII: then a topic equal to `raw` is byte for byte `raw`.
    public let rawIsASCII: Bool
    public let fused: String
    public let approx: String
    public let significant: String
    public let visit: String

    public init(device: String) {
        raw = Topic.locationRaw(device)
        rawIsASCII = raw.utf8.allSatisfy { $0 < 0x80 }
        fused = Topic.locationFused(device)
        approx = Topic.locationApprox(device)
        significant = Topic.locationSignificant(device)
        visit = Topic.visit(device)
    }
}

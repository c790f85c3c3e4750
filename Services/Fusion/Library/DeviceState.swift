public import LocusGeo

/// Everything fusion keeps about one device, as values: the filter and the per-stream state.
public struct DeviceState: Sendable {
    public var filter: DeviceFilter
    public var policy: OutputPolicy
    public var screen: FixScreen
    public var significant: SignificantChange
    public var visits: VisitDetector
    /// The last approximate point published and its period, so one period yields one message.
    public var lastApprox: (coordinate: Coordinate, period: Int64)?
    public var lastStoredT = -Double.infinity
    /// Fix time of the last location saved or waiting to be saved.
    public var unsavedFix: LastKnownStore.Entry?
    public var lastFloodReport = -Double.infinity
    /// Recent (source, t, lat, lon) keys, to drop a fix that arrives twice under different ids.
    public var recentFixes: [FixKey] = []
    public var lastAltitude: (value: Double, accuracy: Double?)?
    /// Where the device's fixes stand in time: newest real fix, invented ones, its clock.
    public var timeline = FixTimeline()

    public struct FixKey: Sendable, Equatable {
        public var source: String
        public var t: Double
        public var lat: Double
        public var lon: Double
    }

    public init(configuration: FusionConfiguration) {
        filter = DeviceFilter(settings: configuration.filter)
        policy = OutputPolicy(fallbackAfterSeconds: configuration.desiredAccuracyFallbackSeconds)
        screen = configuration.screen
        significant = SignificantChange(minimumDistanceMeters: configuration.significantDistanceMeters,
                                        minimumIntervalSeconds: configuration.significantIntervalSeconds)
        visits = VisitDetector(radiusMeters: configuration.visitRadiusMeters, minimumStaySeconds: configuration.visitMinimumStaySeconds)
    }

    /// Whether this exact fix was seen; remembers it when not.
    public mutating func isRepeat(_ key: FixKey) -> Bool {
        if recentFixes.contains(key) { return true }
        recentFixes.append(key)
        if recentFixes.count > 8 { recentFixes.removeFirst() }
        return false
    }
}

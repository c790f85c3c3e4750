import LocusService

/// Everything `FusionLogic` can be tuned with; the executable fills it from flags.
public struct FusionConfiguration: Sendable {
    // MARK: Estimate
    public var filter = FilterSettings()
    public var trust = SourceTrust()
    /// Template of the per-device input checks (flood, time, jumps).
    public var screen = FixScreen()

    // MARK: Streams
    /// Reduced-accuracy stream; nil publishes none.
    public var approx: ApproximateLocation?
    public var significantDistanceMeters = 500.0
    public var significantIntervalSeconds = 300.0
    public var visitRadiusMeters = 100.0
    public var visitMinimumStaySeconds = 300.0
    /// With `desiredAccuracy` set, a worse fix still goes out after this long without one.
    public var desiredAccuracyFallbackSeconds = 30.0

    // MARK: Last known location
    /// A cached location is republished on start only when younger than this.
    public var cacheValiditySeconds = 1_800.0
    /// Minimum fix time between two saves of one device's last location.
    public var storeIntervalSeconds = 5.0

    // MARK: Limits
    /// Most devices kept at once (`DeviceCap`).
    public var maximumDevices = DeviceCap.defaultMaximum
    /// A fix stamped further than this ahead of its arrival is a clock fault (re-timed by arrival).
    public var maximumFutureSeconds = 300.0
    /// …and so is one stamped further than this behind its arrival.
    public var clockFaultBehindSeconds = 86_400.0
    /// Seconds (of arrival) between two clock-fault reports about one device.
    public var clockFaultReportIntervalSeconds = 60.0
    /// A real fix older than its device's newest by more than this is refused; younger, it is history.
    public var lateLimitSeconds = 21_600.0
    /// Message ids remembered to reject duplicates.
    public var rememberedIDs = 4_096
    /// Seconds (of fix time) between two error reports about one device's flood.
    public var floodReportIntervalSeconds = 10.0

    public init() {}
}

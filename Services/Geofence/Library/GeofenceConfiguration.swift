public import LocusProtocol

/// The knobs of region monitoring, with Core Location's behaviour as the defaults where
/// it has one.
public struct GeofenceConfiguration: Sendable, Equatable {
    // MARK: Regions

    /// Circles smaller than this are widened to it, as Core Location does (metres).
    public var minimumRadiusMeters: Double = 100
    /// Circles larger than this fail with `radiusTooLarge` (metres).
    public var maximumRadiusMeters: Double = 100_000
    /// Regions one owner may monitor; 20 reproduces Core Location's per-app limit.
    public var regionsPerOwner: Int = 10_000

    // MARK: Decisions

    /// A fix counts as inside (outside) with high confidence when it lies at least
    /// `confidenceFactor × hacc` metres inside (outside) the boundary.
    public var confidenceFactor: Double = 1
    /// Seconds of fix time a new state must hold, fix after fix, before it is reported.
    public var debounceSeconds: Double = 10
    /// Region boxes are filed widened by this many metres, so a fix whose
    /// `confidenceFactor × hacc` is smaller finds every region it might touch with one
    /// point lookup; less precise fixes use a slower range query.
    public var indexMarginMeters: Double = 250
    /// Lets a fix that provably changes nothing skip the per-region work (`QuietZone`).
    /// Off evaluates every fix against every nearby region: the same results, slower; for
    /// comparisons.
    public var quietZones = true

    // MARK: Authorization

    /// The status assumed for an owner with no `auth.status` yet (nil: `notDetermined`).
    /// Lets the service run before an authorization service exists.
    public var defaultAuthorization: AuthorizationStatus?

    public init() {}
}

/// One position fix (type "location"), as published on `location.raw|fused|approx|significant.<device>`.
/// Optional fields are nil when unknown and then absent on the wire, never 0.
public struct Location: Sendable, Equatable {
    /// The device the fix belongs to (a topic id).
    public var device: String
    /// Where it came from: gps, gnss, wifi, cell, ip, sim, fused, dr, cache, manual, or a plugin's word.
    public var source: String
    /// Degrees, WGS-84, in [-90, 90].
    public var lat: Double
    /// Degrees, WGS-84, in [-180, 180].
    public var lon: Double
    /// Horizontal accuracy in metres (68% radius), > 0.
    public var hacc: Double
    /// Metres above the WGS-84 ellipsoid.
    public var alt: Double?
    /// Vertical accuracy in metres, > 0.
    public var vacc: Double?
    /// Ground speed in m/s, ≥ 0.
    public var speed: Double?
    /// Speed accuracy in m/s, > 0.
    public var speedAcc: Double?
    /// Course over ground, degrees true, in [0, 360).
    public var course: Double?
    /// Course accuracy in degrees, > 0.
    public var courseAcc: Double?
    /// Fix mode: 2d, 3d, dr, approx or cache.
    public var mode: String?
    /// Satellites used, ≥ 0.
    public var sats: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Extension: accuracy tier chosen by fusion: high, medium, low or insufficient.
    public var tier: String?
    /// Extension: seconds since the fix was measured (cached or dead-reckoned fixes), ≥ 0.
    public var age: Double?
    /// Extension: where `t` came from when it is not the fix's own time: `arrival` for a fix
    /// whose clock was implausible and which was re-timed by when it arrived. Absent: the fix's own time.
    public var timeSource: String?

    public init(
        device: String, source: String, lat: Double, lon: Double, hacc: Double,
        alt: Double? = nil, vacc: Double? = nil, speed: Double? = nil, speedAcc: Double? = nil,
        course: Double? = nil, courseAcc: Double? = nil, mode: String? = nil, sats: Int? = nil,
        hdop: Double? = nil, tier: String? = nil, age: Double? = nil, timeSource: String? = nil
    ) {
        self.device = device
        self.source = source
        self.lat = lat
        self.lon = lon
        self.hacc = hacc
        self.alt = alt
        self.vacc = vacc
        self.speed = speed
        self.speedAcc = speedAcc
        self.course = course
        self.courseAcc = courseAcc
        self.mode = mode
        self.sats = sats
        self.hdop = hdop
        self.tier = tier
        self.age = age
        self.timeSource = timeSource
    }

    /// The fix modes docs/protocol.md names; validation rejects other words.
    public static let modes: Set<String> = ["2d", "3d", "dr", "approx", "cache"]
    /// The accuracy tiers fusion assigns; validation rejects other words.
    public static let tiers: Set<String> = ["high", "medium", "low", "insufficient"]
    /// The words of `timeSource`; validation rejects others.
    public static let timeSources: Set<String> = ["fix", "arrival"]
}

/// One position fix assembled from all sentences of one reporting epoch.
///
/// A field that the receiver did not report is nil, never 0: "missing means
/// unknown", as in gpsd's JSON. `hacc` is always present because a location
/// without an accuracy is useless to fusion and geofencing; `haccSource` says how
/// much to trust it.
public struct NMEAFix: Sendable, Equatable {
    /// Unix seconds (UTC) of the fix; nil when no date is known yet (no RMC/ZDA date
    /// seen): a time of day alone is not an absolute time, and we do not invent one.
    public var time: Double?
    /// Seconds since midnight UTC, as the receiver stamped the epoch.
    public var timeOfDay: Double
    /// WGS 84 latitude in degrees, north positive.
    public var lat: Double
    /// WGS 84 longitude in degrees, east positive.
    public var lon: Double
    /// 2 for a horizontal-only fix, 3 for a fix with altitude.
    public var mode: Int
    /// Height above the WGS 84 ellipsoid (metres): MSL altitude plus geoid separation.
    public var altHAE: Double?
    /// Height above mean sea level (metres) as the receiver reported it.
    public var altMSL: Double?
    /// Ground speed in metres per second.
    public var speed: Double?
    /// Course over ground in degrees from true north.
    public var course: Double?
    /// Satellites used in the solution.
    public var sats: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Radius in metres containing the true position with 68% probability.
    public var hacc: Double
    /// One-sigma vertical error in metres (68%), when derivable.
    public var vacc: Double?
    /// Where `hacc` came from: "gst", "gbs", "hdop" or "default".
    public var haccSource: String
    /// GGA fix quality (1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float, …) when known.
    public var quality: Int?

    public init(time: Double?, timeOfDay: Double, lat: Double, lon: Double, mode: Int,
                altHAE: Double? = nil, altMSL: Double? = nil, speed: Double? = nil, course: Double? = nil,
                sats: Int? = nil, hdop: Double? = nil, hacc: Double, vacc: Double? = nil,
                haccSource: String, quality: Int? = nil) {
        self.time = time
        self.timeOfDay = timeOfDay
        self.lat = lat
        self.lon = lon
        self.mode = mode
        self.altHAE = altHAE
        self.altMSL = altMSL
        self.speed = speed
        self.course = course
        self.sats = sats
        self.hdop = hdop
        self.hacc = hacc
        self.vacc = vacc
        self.haccSource = haccSource
        self.quality = quality
    }
}

public import LocusProtocol

/// One fix as a gpsd device reports it: the Locus fix, the time it was measured, the
/// gpsd mode and status it maps to, and the climb derived from the previous fix.
public struct ServedFix: Sendable, Equatable {
    public var location: Location
    /// When the position was measured: the message time less the fix's `age` (a cached
    /// or dead-reckoned fix says how old its measurement is).
    public var time: Double
    public var climb: Double?
    public var climbSigma: Double?

    public init(location: Location, messageTime: Double, previous: ServedFix? = nil) {
        self.location = location
        time = messageTime - (location.age ?? 0)
        if let previous, let alt = location.alt, let previousAlt = previous.altitude, isThreeDimensional,
           let pair = GpsdErrorModel.climb(from: (previousAlt, previous.location.vacc, previous.time),
                                           to: (alt, location.vacc, time)) {
            climb = pair.rate
            climbSigma = pair.sigma
        }
    }

    /// gpsd's `mode`: 3 with an altitude, 2 without (Locus's `2d` fixes count as 2 even when
    /// fusion carries an older altitude along).
    public var mode: Int { isThreeDimensional ? 3 : 2 }

    public var isThreeDimensional: Bool { location.alt != nil && location.mode != "2d" && location.mode != "approx" }

    /// The altitude served, only in a 3D fix.
    public var altitude: Double? { isThreeDimensional ? location.alt : nil }

    /// Dead-reckoned fixes are gpsd's status 5 ("DR fix"); others carry no status.
    public var isDeadReckoned: Bool { location.mode == "dr" || location.source == "dr" }

    /// Cached (last known) fixes and dead reckoning are estimates, not measurements: NMEA
    /// quality 6 and mode indicator `E`.
    public var isEstimated: Bool { isDeadReckoned || location.mode == "cache" || location.source == "cache" }
}

/// What a raw receiver fix said about the sky.
public struct SkyView: Sendable, Equatable {
    public var used: Int?
    public var hdop: Double?
    public var time: Double

    public init(used: Int?, hdop: Double?, time: Double) {
        self.used = used
        self.hdop = hdop
        self.time = time
    }
}

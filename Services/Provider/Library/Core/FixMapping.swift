public import LocusProtocol

/// `NMEAFix` → `Location`: the one place where a receiver's report becomes a protocol fix.
///
/// Source is `gps` for a GPS-only talker and `gnss` otherwise (callers pass it); mode is
/// `2d`/`3d`; `alt` is the height above the ellipsoid (docs/protocol.md), not MSL; `hacc`/`vacc`
/// come from `NMEAAccuracyModel`. Fixes without an absolute time return nil: time of
/// day alone is not a time, and we do not invent a date.
public enum FixMapping {
    public static func location(_ fix: NMEAFix, device: String, source: String = "gnss") -> (location: Location, t: Double)? {
        guard let time = fix.time else { return nil }
        let location = Location(
            device: device, source: source, lat: fix.lat, lon: fix.lon, hacc: positive(fix.hacc) ?? NMEAAccuracyModel.defaultRadiusMeters,
            alt: finite(fix.altHAE), vacc: positive(fix.vacc), speed: fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
            course: fix.course.flatMap(normalizedCourse), mode: fix.mode >= 3 ? "3d" : "2d",
            sats: fix.sats.flatMap { $0 >= 0 ? $0 : nil }, hdop: positive(fix.hdop))
        return (location, time)
    }

    /// A course in [0, 360), or nil when not finite.
    public static func normalizedCourse(_ degrees: Double) -> Double? {
        guard degrees.isFinite else { return nil }
        let wrapped = degrees.truncatingRemainder(dividingBy: 360)
        let value = wrapped < 0 ? wrapped + 360 : wrapped
        return value >= 360 ? 0 : value
    }

    static func positive(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value > 0 else { return nil }
        return value
    }

    static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }
}

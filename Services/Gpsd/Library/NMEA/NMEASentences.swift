import LocusProtocol

/// NMEA 0183 sentences generated from a served fix: RMC, GGA, GSA and GST, in the order a
/// receiver sends one epoch (RMC first, so a reader has the date before GGA's time).
///
/// Choices a reader should know (docs/gpsd.md repeats them):
/// - Talker `GP`: the fused estimate is not one constellation's, but `GP` is what every
///   NMEA reader accepts (GeoClue before 2.6 read only `$GPGGA`).
/// - Positions carry 7 decimals of minutes (about 0.2 mm), times 3 decimals of seconds.
/// - GGA's altitude is the ellipsoid height with a geoid separation of 0: Locus has no
///   geoid model, and a reader that adds the separation (gpsd, Locus's own NMEA reader)
///   gets the ellipsoid height back exactly.
/// - Quality 1 (mode indicator `A`) for a position, 6 (`E`) for a dead-reckoned or
///   cached one. HDOP and satellites come from the receiver when a raw fix said them;
///   otherwise HDOP is derived from `hacc` (`GpsdErrorModel.hdop`) and the satellite count
///   is the fewest a fix of that dimension needs (4 for 3D, 3 for 2D): gpsd, for one, takes
///   a GGA with fewer than 3 satellites as "no fix" and drops its position.
/// - GST carries the one-sigma errors behind `hacc` (and `vacc`); GSA names no satellites.
public enum NMEASentences {
    public static let talker = "GP"
    static let knotsPerMeterPerSecond = 3600.0 / 1852.0

    /// One epoch: RMC, GGA, GSA, GST, each `$…*hh` with CR LF.
    public static func epoch(fix: ServedFix, sky: SkyView?) -> [String] {
        [rmc(fix), gga(fix, sky: sky), gsa(fix, sky: sky), gst(fix)]
    }

    static func rmc(_ fix: ServedFix) -> String {
        let time = UTCTime(unixSeconds: fix.time)
        let location = fix.location
        let (lat, ns) = latitude(location.lat)
        let (lon, ew) = longitude(location.lon)
        let speed = location.speed.map { FixedDecimal.text($0 * knotsPerMeterPerSecond, decimals: 3) } ?? ""
        let course = location.course.map { FixedDecimal.text($0, decimals: 2) } ?? ""
        let mode = fix.isEstimated ? "E" : "A"
        return sentence("RMC", [time.nmeaTimeOfDay, "A", lat, ns, lon, ew, speed, course, time.nmeaDate, "", "", mode])
    }

    static func gga(_ fix: ServedFix, sky: SkyView?) -> String {
        let location = fix.location
        let (lat, ns) = latitude(location.lat)
        let (lon, ew) = longitude(location.lon)
        let quality = fix.isEstimated ? "6" : "1"
        let used = FixedDecimal.padded(sky?.used ?? location.sats ?? (fix.mode == 3 ? 4 : 3), width: 2)
        let altitude = fix.altitude.map { FixedDecimal.text($0, decimals: 3) } ?? ""
        let separation = fix.altitude == nil ? "" : "0.0"
        return sentence("GGA", [UTCTime(unixSeconds: fix.time).nmeaTimeOfDay, lat, ns, lon, ew, quality, used,
                                hdopText(fix, sky: sky), altitude, "M", separation, "M", "", ""])
    }

    static func gsa(_ fix: ServedFix, sky: SkyView?) -> String {
        let satellites = [String](repeating: "", count: 12)
        return sentence("GSA", ["A", String(fix.mode)] + satellites + ["", hdopText(fix, sky: sky), ""])
    }

    static func gst(_ fix: ServedFix) -> String {
        let sigma = FixedDecimal.text(GpsdErrorModel.sigmaMeters(hacc: fix.location.hacc), decimals: 3)
        let altitudeSigma = fix.altitude == nil ? "" : fix.location.vacc.map { FixedDecimal.text($0, decimals: 3) } ?? ""
        return sentence("GST", [UTCTime(unixSeconds: fix.time).nmeaTimeOfDay, "", sigma, sigma, "0.0", sigma, sigma, altitudeSigma])
    }

    private static func hdopText(_ fix: ServedFix, sky: SkyView?) -> String {
        let hdop = sky?.hdop ?? fix.location.hdop ?? GpsdErrorModel.hdop(hacc: fix.location.hacc)
        return FixedDecimal.text(min(hdop, 99.99), decimals: 2)
    }

    /// `$TTSSS,fields*hh\r\n` with the checksum: the XOR of every byte between `$` and `*`.
    static func sentence(_ type: String, _ fields: [String]) -> String {
        let body = talker + type + "," + fields.joined(separator: ",")
        let sum = checksum(body.utf8)
        return "$" + body + "*" + hexByte(sum) + "\r\n"
    }

    public static func checksum(_ body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }

    private static func hexByte(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return value < 16 ? "0" + digits : digits
    }

    /// `ddmm.mmmmmmm` and N/S; the minutes are rounded once as an integer count of
    /// 10⁻⁷ minutes, so 59.99999999′ carries into the degrees instead of printing 60′.
    static func latitude(_ degrees: Double) -> (String, String) {
        (angle(abs(degrees), degreeDigits: 2), degrees < 0 ? "S" : "N")
    }

    /// `dddmm.mmmmmmm` and E/W.
    static func longitude(_ degrees: Double) -> (String, String) {
        (angle(abs(degrees), degreeDigits: 3), degrees < 0 ? "W" : "E")
    }

    private static func angle(_ degrees: Double, degreeDigits: Int) -> String {
        let unitsPerMinute: Int64 = 10_000_000
        let units = Int64((degrees * 60 * Double(unitsPerMinute)).rounded())
        let whole = units / (60 * unitsPerMinute)
        let rest = units % (60 * unitsPerMinute)
        let minutes = Int(rest / unitsPerMinute)
        let fraction = Int(rest % unitsPerMinute)
        return FixedDecimal.padded(Int(whole), width: degreeDigits) + FixedDecimal.padded(minutes, width: 2) + "."
            + FixedDecimal.padded(fraction, width: 7)
    }
}

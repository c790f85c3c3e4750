import LocusProtocol

/// The report objects a watcher receives (gpsd_json(5), "CORE SOCKET PROTOCOL"): TPV, SKY
/// and GST, with gpsd's member order and decimals (`lat` to 9 places, errors to 3), so a
/// client cannot tell them from gpsd's own.
public enum GpsdReports {
    /// TPV: time, position, velocity and their errors (see `GpsdErrorModel`).
    public static func tpv(path: String, fix: ServedFix) -> GpsdJSONObject {
        let location = fix.location
        var object = GpsdJSONObject(class: "TPV")
        object.add("device", string: path)
        if fix.isDeadReckoned { object.add("status", integer: 5) }
        object.add("mode", integer: fix.mode)
        object.add("time", string: UTCTime(unixSeconds: fix.time).iso8601)
        object.add("lat", location.lat, decimals: 9)
        object.add("lon", location.lon, decimals: 9)
        object.add("altHAE", fix.altitude, decimals: 4)
        let axis = GpsdErrorModel.axisError95(hacc: location.hacc)
        object.add("epx", axis, decimals: 3)
        object.add("epy", axis, decimals: 3)
        if fix.altitude != nil { object.add("epv", location.vacc.map(GpsdErrorModel.bound95(oneSigma:)), decimals: 3) }
        object.add("track", location.course, decimals: 4)
        object.add("speed", location.speed, decimals: 3)
        object.add("climb", fix.climb, decimals: 3)
        object.add("epd", location.course == nil ? nil : location.courseAcc.map(GpsdErrorModel.bound95(oneSigma:)), decimals: 4)
        object.add("eps", location.speed == nil ? nil : location.speedAcc.map(GpsdErrorModel.bound95(oneSigma:)), decimals: 2)
        object.add("epc", fix.climbSigma.map(GpsdErrorModel.bound95(oneSigma:)), decimals: 2)
        object.add("eph", GpsdErrorModel.horizontalError95(hacc: location.hacc), decimals: 3)
        return object
    }

    /// TPV of a device that has not reported yet: mode 0, "no mode value yet seen".
    public static func emptyTPV(path: String) -> GpsdJSONObject {
        var object = GpsdJSONObject(class: "TPV")
        object.add("device", string: path)
        object.add("mode", integer: 0)
        return object
    }

    /// SKY: what the receiver said about satellites. Locus does not carry individual
    /// satellites, so `satellites` is left out as gpsd leaves it out when it has seen none
    /// (`nSat` 0), and `uSat` says how many the fix used.
    public static func sky(path: String, sky: SkyView) -> GpsdJSONObject {
        var object = GpsdJSONObject(class: "SKY")
        object.add("device", string: path)
        object.add("time", string: UTCTime(unixSeconds: sky.time).iso8601)
        object.add("hdop", sky.hdop, decimals: 2)
        object.add("nSat", integer: 0)
        object.add("uSat", integer: sky.used)
        return object
    }

    /// GST: the one-sigma errors behind `hacc` and `vacc` (a circular error, so the
    /// ellipse's major and minor axes are equal and its orientation is 0).
    public static func gst(path: String, fix: ServedFix) -> GpsdJSONObject {
        let sigma = GpsdErrorModel.sigmaMeters(hacc: fix.location.hacc)
        var object = GpsdJSONObject(class: "GST")
        object.add("device", string: path)
        object.add("time", string: UTCTime(unixSeconds: fix.time).iso8601)
        object.add("major", sigma, decimals: 3)
        object.add("minor", sigma, decimals: 3)
        object.add("orient", 0, decimals: 3)
        object.add("lat", sigma, decimals: 3)
        object.add("lon", sigma, decimals: 3)
        if fix.altitude != nil { object.add("alt", fix.location.vacc, decimals: 3) }
        return object
    }
}

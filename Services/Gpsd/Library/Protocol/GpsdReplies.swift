import LocusProtocol

/// The answers to commands and the notices gpsd sends unasked (gpsd_json(5)).
public enum GpsdReplies {
    /// The gpsd release whose protocol (3.14) is spoken; `rev` names this server.
    public static let release = "3.22"
    public static let protocolMajor = 3
    public static let protocolMinor = 14
    /// gpsd's `driver` field for every Locus device.
    public static let driver = "Locus"

    /// VERSION, sent on connect and for `?VERSION;`.
    public static func version(revision: String) -> GpsdJSONObject {
        var object = GpsdJSONObject(class: "VERSION")
        object.add("release", string: release)
        object.add("rev", string: revision)
        object.add("proto_major", integer: protocolMajor)
        object.add("proto_minor", integer: protocolMinor)
        return object
    }

    /// DEVICE: a Locus device as gpsd describes a network source — path, driver, and once a
    /// fix was served, `activated` and `flags` 1 (GPS data seen). No serial members
    /// (`bps`, `parity`, `stopbits`): gpsd leaves them out for non-serial sources too.
    /// `subtype` says which stream it serves: `fused` or `approx`.
    public static func device(_ record: DeviceTable.Record, subtype: String) -> GpsdJSONObject {
        var object = GpsdJSONObject(class: "DEVICE")
        object.add("path", string: record.path)
        object.add("driver", string: driver)
        object.add("subtype", string: subtype)
        if let activated = record.activated {
            object.add("activated", string: UTCTime(unixSeconds: activated).iso8601)
            object.add("flags", integer: 1)
        }
        return object
    }

    /// DEVICES: every served device.
    public static func devices(_ records: [DeviceTable.Record], subtype: String) -> GpsdJSONObject {
        var object = GpsdJSONObject(class: "DEVICES")
        object.add("devices", json: "[" + records.map { device($0, subtype: subtype).object }.joined(separator: ",") + "]")
        return object
    }

    /// ERROR with gpsd's wording where gpsd has one.
    public static func error(_ message: String) -> GpsdJSONObject {
        var object = GpsdJSONObject(class: "ERROR")
        object.add("message", string: message)
        return object
    }

    /// POLL: the last fix of every watched device that has one (gpsd counts only those as
    /// `active`), their GST, and their SKY where satellites are known.
    public static func poll(_ records: [DeviceTable.Record], now: Double) -> GpsdJSONObject {
        let served = records.compactMap { record in record.fix.map { (record.path, $0, record.sky) } }
        var object = GpsdJSONObject(class: "POLL")
        object.add("time", string: UTCTime(unixSeconds: now).iso8601)
        object.add("active", integer: served.count)
        object.add("tpv", json: "[" + served.map { GpsdReports.tpv(path: $0.0, fix: $0.1).object }.joined(separator: ",") + "]")
        object.add("gst", json: "[" + served.map { GpsdReports.gst(path: $0.0, fix: $0.1).object }.joined(separator: ",") + "]")
        let skies = served.compactMap { entry in entry.2.map { GpsdReports.sky(path: entry.0, sky: $0).object } }
        object.add("sky", json: "[" + skies.joined(separator: ",") + "]")
        return object
    }
}

/// One client's watch policy and the rules gpsd applies when a `?WATCH={…}` changes it.
///
/// gpsd resets the members a WATCH object leaves out to their defaults — `enable` to
/// true, `scaled`, `timing`, `split24`, `pps` to false, `device` to none — but keeps
/// `json`, `nmea` and `raw` as they were (its parser marks those three "nodefault"). So
/// `?WATCH={"enable":true,"nmea":true}` after a JSON watch streams both, and
/// `?WATCH={"enable":false}` stops the stream but still reports `"json":true`. The reply
/// always lists every member, in gpsd's order (gpsd_json(5), `?WATCH`).
public struct WatchPolicy: Sendable, Equatable {
    public var enable = false
    public var json = false
    public var nmea = false
    public var raw = 0
    public var scaled = false
    public var timing = false
    public var split24 = false
    public var pps = false
    /// The one device path watched; nil watches every device.
    public var device: String?

    public init() {}

    /// The policy of a NMEA-only socket (GeoClue's `nmea-socket`): NMEA from the start.
    public static let nmeaStream: WatchPolicy = {
        var policy = WatchPolicy()
        policy.enable = true
        policy.nmea = true
        return policy
    }()

    /// Applies a WATCH object. On a member of the wrong type the message says which; as with
    /// gpsd, whose parser sets the defaults before it reads a member, the defaulted members
    /// are then reset while `json`, `nmea` and `raw` keep their values.
    public mutating func apply(_ object: FlatJSONObject) throws(GpsdProtocolError) {
        do throws(GpsdProtocolError) {
            try applyMembers(object)
        } catch {
            enable = true
            scaled = false
            timing = false
            split24 = false
            pps = false
            device = nil
            throw error
        }
    }

    private mutating func applyMembers(_ object: FlatJSONObject) throws(GpsdProtocolError) {
        var next = self
        next.enable = try Self.bool(object, "enable") ?? true
        next.json = try Self.bool(object, "json") ?? json
        next.nmea = try Self.bool(object, "nmea") ?? nmea
        next.raw = try Self.integer(object, "raw") ?? raw
        next.scaled = try Self.bool(object, "scaled") ?? false
        next.timing = try Self.bool(object, "timing") ?? false
        next.split24 = try Self.bool(object, "split24") ?? false
        next.pps = try Self.bool(object, "pps") ?? false
        switch object["device"] {
        case nil, .null: next.device = nil
        case .string(let path): next.device = path.isEmpty ? nil : path
        default: throw GpsdProtocolError("\"device\" must be a string")
        }
        self = next
    }

    /// Whether reports of the device at `path` reach this client.
    public func covers(_ path: String) -> Bool {
        enable && (device == nil || device == path)
    }

    /// JSON reports (TPV, SKY, GST, DEVICE notices) are sent.
    public var wantsJSON: Bool { enable && json }

    /// NMEA sentences are sent (gpsd also sends them in raw mode).
    public var wantsNMEA: Bool { enable && (nmea || raw > 0) }

    /// The WATCH reply object.
    public var report: GpsdJSONObject {
        var object = GpsdJSONObject(class: "WATCH")
        object.add("enable", bool: enable)
        object.add("json", bool: json)
        object.add("nmea", bool: nmea)
        object.add("raw", integer: raw)
        object.add("scaled", bool: scaled)
        object.add("timing", bool: timing)
        object.add("split24", bool: split24)
        object.add("pps", bool: pps)
        object.add("device", string: device)
        return object
    }

    private static func bool(_ object: FlatJSONObject, _ key: String) throws(GpsdProtocolError) -> Bool? {
        switch object[key] {
        case nil: return nil
        case .bool(let value): return value
        default: throw GpsdProtocolError("\"\(key)\" must be true or false")
        }
    }

    private static func integer(_ object: FlatJSONObject, _ key: String) throws(GpsdProtocolError) -> Int? {
        switch object[key] {
        case nil: return nil
        case .number(let value) where value == value.rounded() && abs(value) < 1_000: return Int(value)
        default: throw GpsdProtocolError("\"\(key)\" must be a whole number")
        }
    }
}

/// A request gpsd would refuse, with the reason a client is told.
public struct GpsdProtocolError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A position in GeoJSON order: longitude first (`[lon, lat]` on the wire).
public struct GeoPoint: Sendable, Equatable, Hashable {
    public var lon: Double
    public var lat: Double

    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }
}

/// The area a region covers: a GeoJSON `Polygon`/`MultiPolygon`, or the `Circle` extension.
public enum RegionShape: Sendable, Equatable {
    /// `{"type":"Circle","center":[lon,lat],"radius":metres}`.
    case circle(center: GeoPoint, radius: Double)
    /// Rings: the outer boundary first, then holes; each ring closed (first == last), ≥ 4 positions.
    case polygon([[GeoPoint]])
    /// Several polygons, each as in `.polygon`.
    case multiPolygon([[[GeoPoint]]])
    /// A route with a width: `{"type":"LineString","coordinates":[[lon,lat],…],"width":m}`,
    /// every point within `width` metres (geodesic) of the line, on either side.
    case corridor(line: [GeoPoint], width: Double)
}

/// Weekly hours in which a region is monitored, in a named time zone (an IANA name such
/// as "Europe/Berlin", so daylight saving time follows the zone's rules).
public struct ActiveHours: Sendable, Equatable {
    public var timeZone: String
    public var windows: [ActiveWindow]

    public init(timeZone: String, windows: [ActiveWindow]) {
        self.timeZone = timeZone
        self.windows = windows
    }
}

/// One weekly window: on each of `days` ("mon" … "sun") from `start` to `end`, local
/// "HH:MM" times; an `end` at or before `start` runs past midnight into the next day.
public struct ActiveWindow: Sendable, Equatable {
    public static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    public var days: [String]
    public var start: String
    public var end: String

    public init(days: [String], start: String, end: String) {
        self.days = days
        self.start = start
        self.end = end
    }

    /// Minutes after local midnight of an "HH:MM" time (00:00 … 24:00), nil if malformed.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0...24).contains(hours), (0..<60).contains(minutes), hours * 60 + minutes <= 1_440 else { return nil }
        return hours * 60 + minutes
    }
}

/// A monitored region (inside `region.add`, `region.added` and `region.list` replies).
public struct Region: Sendable, Equatable {
    /// Unique per owner; re-adding an id replaces the region.
    public var id: String
    public var shape: RegionShape
    /// Whether `enter` events are wanted (default true, as in Core Location).
    public var notifyOnEntry: Bool
    /// Whether `exit` events are wanted (default true).
    public var notifyOnExit: Bool
    /// Seconds inside before a `dwell` event; nil for no dwell events.
    public var dwell: Double?
    /// The devices to watch; nil means all.
    public var devices: [String]?
    /// When monitoring ends (seconds since the Unix epoch): devices inside get an `exit`
    /// with cause `expired`, then the region is removed. Nil: never.
    public var expires: Double?
    /// When the region is monitored; nil: always. Outside these hours it produces no
    /// events; when they begin again it reports each device's state once.
    public var activeHours: ActiveHours?

    public init(
        id: String, shape: RegionShape, notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
        dwell: Double? = nil, devices: [String]? = nil, expires: Double? = nil, activeHours: ActiveHours? = nil
    ) {
        self.id = id
        self.shape = shape
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.dwell = dwell
        self.devices = devices
        self.expires = expires
        self.activeHours = activeHours
    }
}

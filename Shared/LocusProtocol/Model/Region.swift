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

    public init(
        id: String, shape: RegionShape, notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
        dwell: Double? = nil, devices: [String]? = nil, expires: Double? = nil
    ) {
        self.id = id
        self.shape = shape
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.dwell = dwell
        self.devices = devices
        self.expires = expires
    }
}

/// One point of a GPX file (`wpt`, `rtept` or `trkpt`). Absent elements are nil:
/// GPX allows a point with nothing but `lat` and `lon`.
public struct GPXPoint: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    /// `ele`, metres (GPX says "elevation"; receivers usually mean above mean sea level).
    public var elevation: Double?
    /// `time`, Unix seconds UTC.
    public var time: Double?
    /// `speed` (GPX 1.0), m/s.
    public var speed: Double?
    /// `course` (GPX 1.0), degrees true.
    public var course: Double?
    public var hdop: Double?
    public var vdop: Double?
    public var sats: Int?

    public init(lat: Double, lon: Double, elevation: Double? = nil, time: Double? = nil, speed: Double? = nil,
                course: Double? = nil, hdop: Double? = nil, vdop: Double? = nil, sats: Int? = nil) {
        self.lat = lat
        self.lon = lon
        self.elevation = elevation
        self.time = time
        self.speed = speed
        self.course = course
        self.hdop = hdop
        self.vdop = vdop
        self.sats = sats
    }
}

/// What a GPX 1.0/1.1 file holds: waypoints, routes and tracks (segments joined per track).
public struct GPXDocument: Sendable, Equatable {
    public var version: String?
    /// `metadata/time` (1.1) or the top-level `time` (1.0).
    public var time: Double?
    public var waypoints: [GPXPoint] = []
    public var routes: [[GPXPoint]] = []
    public var tracks: [[GPXPoint]] = []

    public init() {}

    /// The points to replay: every track point if there are tracks, else route points,
    /// else the waypoints — the order Xcode's location simulation also prefers a path in.
    public var path: [GPXPoint] {
        let track = tracks.flatMap { $0 }
        if !track.isEmpty { return track }
        let route = routes.flatMap { $0 }
        if !route.isEmpty { return route }
        return waypoints
    }
}

/// Why a GPX file could not be read, with the line and column (in characters) where known.
public struct GPXError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int?
    public var column: Int?

    public init(_ message: String, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        guard let line else { return "GPX: \(message)" }
        guard let column else { return "GPX line \(line): \(message)" }
        return "GPX line \(line), column \(column): \(message)"
    }
}

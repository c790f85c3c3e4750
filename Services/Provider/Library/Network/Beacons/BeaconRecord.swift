public import LocusGeo

/// What the database knows about one beacon (an access point or a cell): where it is heard,
/// how far, and how much evidence stands behind that.
public struct BeaconRecord: Sendable, Equatable {
    /// The centre of the places it was heard from (learned), or the export's position (imported).
    public var position: Coordinate
    /// Metres from `position` within which it is heard: its coverage.
    public var radius: Double
    /// Sum of the learning weights behind `position` (imported rows: samples × a nominal weight).
    public var weight: Double
    /// Observations behind the record.
    public var samples: Int
    /// How often it was seen far from where it was known. Once is a move (the record starts
    /// again at the new place); twice marks a mobile beacon, never used again.
    public var moves: Int
    /// Unix time of the last change.
    public var updated: Double

    public init(position: Coordinate, radius: Double, weight: Double, samples: Int, moves: Int = 0, updated: Double) {
        self.position = position
        self.radius = radius
        self.weight = weight
        self.samples = samples
        self.moves = moves
        self.updated = updated
    }

    /// Seen moving more than once (a hotspot on a bus, a car's access point): says nothing
    /// about where anyone is.
    public var isMobile: Bool { moves >= 2 }
}

/// Which kind of beacon a record is, and the numbers that differ between them.
public enum BeaconKind: String, Sendable {
    case wifi, cell

    /// Farther than this from its known position (or 3 × its radius, up to `moveGateMaximumMeters`)
    /// and the beacon has moved: Wi-Fi is heard up to a few hundred metres, a cell several km.
    public var moveGateMinimumMeters: Double { self == .wifi ? 250 : 5_000 }
    public var moveGateMaximumMeters: Double { self == .wifi ? 1_000 : 30_000 }
    /// Coverage assumed before anything is learned about it.
    public var defaultRadiusMeters: Double { self == .wifi ? 60 : 2_000 }
    /// Largest coverage a record may claim.
    public var maximumRadiusMeters: Double { self == .wifi ? 500 : 50_000 }
    /// Smallest coverage a record may claim.
    public var minimumRadiusMeters: Double { self == .wifi ? 10 : 100 }
}

import Foundation
public import LocusGeo

/// A seeded simulated city for network positioning: a square grid of streets with access
/// points anywhere in the buildings of each block, LTE cell sites with three sectors each, a share of
/// access points that move to another part of town at `moveTime` (people move house), a
/// few that opted out (`_nomap`), and a hotspot that travels on a bus. Positions are in a
/// local east/north frame (metres) around `origin`; same configuration, same city.
public struct CityPlan: Sendable {
    public struct Configuration: Sendable {
        public var seed: UInt64 = 1
        public var origin = Coordinate(lat: 52.520, lon: 13.405)
        /// Blocks per side; the city is `blocks × blockMeters` square.
        public var blocks = 20
        public var blockMeters = 120.0
        /// Mean number of access points in the buildings of one block, placed uniformly
        /// inside it (not on the streets), heard through walls that cost more the deeper they are.
        public var accessPointsPerBlock = 25.0
        /// Share of access points that move at `moveTime`, at least 500 m away.
        public var movedShare = 0.05
        /// Share of access points whose SSID ends in `_nomap`.
        public var optedOutShare = 0.02
        public var cellSiteSpacingMeters = 900.0
        public init() {}
    }

    public struct AccessPoint: Sendable {
        public var bssid: MACAddress
        public var ssid: String
        public var east: Double
        public var north: Double
        /// Where it is after the move, for the access points that move.
        public var movedTo: (east: Double, north: Double)?
        /// This access point's own radio: transmit power and surroundings.
        public var pathLoss: PathLossModel
    }

    public struct Cell: Sendable {
        public var identity: CellIdentity
        public var east: Double
        public var north: Double
        /// Sector antenna direction, degrees from north.
        public var azimuth: Double
        /// What an export of crowd-sourced cell data would say: the centre of the area it
        /// serves and the radius holding nine in ten of those places.
        public var exported: (east: Double, north: Double, radius: Double)
    }

    public let configuration: Configuration
    public let plane: LocalTangentPlane
    public private(set) var accessPoints: [AccessPoint] = []
    public private(set) var cells: [Cell] = []
    public var sizeMeters: Double { Double(configuration.blocks) * configuration.blockMeters }

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        plane = LocalTangentPlane(origin: configuration.origin)
        var random = GaussianNoise(seed: configuration.seed ^ 0x4349_5459)
        placeAccessPoints(&random)
        placeCells(&random)
    }

    public func coordinate(east: Double, north: Double) -> Coordinate { plane.unproject(east: east, north: north) }

    private mutating func placeAccessPoints(_ random: inout GaussianNoise) {
        let block = configuration.blockMeters
        let street = 10.0
        let inside = block - 2 * street
        var used = Set<UInt64>()
        for column in 0..<configuration.blocks {
            for row in 0..<configuration.blocks {
                var count = 0
                // Poisson count: exponential gaps on the unit interval.
                var filled = -log(1 - random.uniform())
                while filled < configuration.accessPointsPerBlock {
                    count += 1
                    filled += -log(1 - random.uniform())
                }
                for _ in 0..<count {
                    let x = street + inside * random.uniform(), y = street + inside * random.uniform()
                    let depth = min(x, y, block - x, block - y) - street
                    let east = Double(column) * block + x, north = Double(row) * block + y
                    var address: UInt64
                    repeat { address = random.rawNext() & 0xFCFF_FFFF_FFFF } while !used.insert(address).inserted
                    let optedOut = random.uniform() < configuration.optedOutShare
                    // Transmit power and antenna vary; the outer wall and the rooms between the
                    // access point and the street take their share.
                    let walls = 4 + 0.15 * depth
                    let loss = PathLossModel(referenceDBm: -36 + 10 * random.uniform() - walls, exponent: 2.8 + 0.5 * random.uniform(),
                                             shadowingSigmaDB: 6)
                    var point = AccessPoint(bssid: MACAddress(value: address)!, ssid: "net-\(accessPoints.count)" + (optedOut ? "_nomap" : ""),
                                            east: east, north: north, movedTo: nil, pathLoss: loss)
                    if random.uniform() < configuration.movedShare {
                        var target: (east: Double, north: Double)
                        repeat {
                            target = (random.uniform() * sizeMeters, random.uniform() * sizeMeters)
                        } while hypot(target.east - east, target.north - north) < 500
                        point.movedTo = target
                    }
                    accessPoints.append(point)
                }
            }
        }
    }

    private mutating func placeCells(_ random: inout GaussianNoise) {
        let spacing = configuration.cellSiteSpacingMeters
        let count = max(1, Int((sizeMeters / spacing).rounded(.up)))
        var site = 0
        for row in 0...count {
            for column in 0...count {
                let east = Double(column) * spacing + (random.uniform() - 0.5) * 300
                let north = Double(row) * spacing + (random.uniform() - 0.5) * 300
                for sector in 0..<3 {
                    let identity = CellIdentity(radio: .lte, mcc: 262, mnc: 1, area: 40_000 + row, cell: Int64(site * 256 + sector + 1))
                    cells.append(Cell(identity: identity, east: east, north: north, azimuth: Double(sector) * 120 + 30,
                                      exported: (east, north, spacing)))
                }
                site += 1
            }
        }
        // The exported position and radius of each cell: where it served the (shadowed)
        // measurements of a 40 m grid, as crowd-sourced exports are built.
        var served: [[(east: Double, north: Double)]] = Array(repeating: [], count: cells.count)
        let step = 40.0
        var east = -spacing / 2
        while east <= sizeMeters + spacing / 2 {
            var north = -spacing / 2
            while north <= sizeMeters + spacing / 2 {
                if let best = CityRadio.servingCell(self, east: east, north: north, shadowDB: { _ in 8 * random.standard() }) {
                    served[best].append((east, north))
                }
                north += step
            }
            east += step
        }
        for index in cells.indices where !served[index].isEmpty {
            let places = served[index]
            let centre = (places.reduce(0) { $0 + $1.east } / Double(places.count), places.reduce(0) { $0 + $1.north } / Double(places.count))
            let distances = places.map { hypot($0.east - centre.0, $0.north - centre.1) }.sorted()
            cells[index].exported = (centre.0, centre.1, max(200, distances[Int(Double(distances.count - 1) * 0.9)]))
        }
    }
}

extension GaussianNoise {
    /// 64 random bits (two 32-bit halves of uniforms), for addresses.
    mutating func rawNext() -> UInt64 {
        UInt64(uniform() * 4_294_967_296) << 32 | UInt64(uniform() * 4_294_967_296)
    }
}

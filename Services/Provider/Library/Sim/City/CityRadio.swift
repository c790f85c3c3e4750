import Foundation

/// What a device in the simulated city hears: each access point's signal follows its own
/// log-distance path loss plus fresh shadowing per scan (normal, 6 dB); it is reported when
/// at least −92 dBm, and nine scans in ten catch it. The serving cell is the strongest sector
/// (path-loss exponent 3.5, a sector pattern losing up to 20 dB off its axis, 8 dB of
/// shadowing). Moved access points are heard at their new place from `moveTime` on.
public struct CityRadio: Sendable {
    public let plan: CityPlan
    /// Simulated time at which the moving access points move.
    public var moveTime: Double
    /// A hotspot in a bus the device rides in during this window (a global address, so it
    /// is stored and must be found to move).
    public var busWindow: ClosedRange<Double>?
    public var sensitivityDBm = -92.0
    public var missProbability = 0.1
    private let buckets: [Int: [Int]]
    private let bucketMeters = 100.0

    public static let busHotspot = MACAddress(value: 0x00_1B_2C_00_B0_55)!
    public static let phoneHotspot = MACAddress(value: 0xDA_A1_19_6B_3E_05)!

    public init(plan: CityPlan, moveTime: Double, busWindow: ClosedRange<Double>? = nil) {
        self.plan = plan
        self.moveTime = moveTime
        self.busWindow = busWindow
        var buckets: [Int: [Int]] = [:]
        for (index, point) in plan.accessPoints.enumerated() {
            var places = [(point.east, point.north)]
            if let moved = point.movedTo { places.append(moved) }
            for place in places {
                buckets[Self.key(place.0, place.1, 100), default: []].append(index)
            }
        }
        self.buckets = buckets
    }

    static func key(_ east: Double, _ north: Double, _ size: Double) -> Int {
        Int((east / size).rounded(.down)) &* 100_003 &+ Int((north / size).rounded(.down))
    }

    /// Where access point `index` is at time `t`.
    public func position(of index: Int, at t: Double) -> (east: Double, north: Double) {
        let point = plan.accessPoints[index]
        if t >= moveTime, let moved = point.movedTo { return moved }
        return (point.east, point.north)
    }

    /// One Wi-Fi scan at a place and time, as iw would report it.
    public func wifiScan(east: Double, north: Double, t: Double, random: inout GaussianNoise) -> NetworkScan {
        var seen = Set<Int>()
        var observations: [WiFiObservation] = []
        let reach = 3
        let column = Int((east / bucketMeters).rounded(.down)), row = Int((north / bucketMeters).rounded(.down))
        for dx in -reach...reach {
            for dy in -reach...reach {
                for index in buckets[(column + dx) &* 100_003 &+ (row + dy)] ?? [] where seen.insert(index).inserted {
                    let place = position(of: index, at: t)
                    let distance = hypot(place.east - east, place.north - north)
                    let point = plan.accessPoints[index]
                    let signal = point.pathLoss.signal(atMeters: distance) + point.pathLoss.shadowingSigmaDB * random.standard()
                    guard signal >= sensitivityDBm, random.uniform() >= missProbability else { continue }
                    observations.append(WiFiObservation(bssid: point.bssid, ssid: point.ssid, frequencyMHz: 2437, signalDBm: signal.rounded()))
                }
            }
        }
        observations.append(WiFiObservation(bssid: Self.phoneHotspot, ssid: "Pixel_4821", frequencyMHz: 2412, signalDBm: -35))
        if let busWindow, busWindow.contains(t) {
            observations.append(WiFiObservation(bssid: Self.busHotspot, ssid: "Bus-WLAN", frequencyMHz: 2462,
                                                signalDBm: (-48 + 3 * random.standard()).rounded()))
        }
        return NetworkScan(format: .iw, wifi: observations)
    }

    /// The serving cell at a place, as mmcli would report it.
    public func cellScan(east: Double, north: Double, random: inout GaussianNoise) -> NetworkScan {
        guard let index = Self.servingCell(plan, east: east, north: north, shadowDB: { _ in 8 * random.standard() }) else {
            return NetworkScan(format: .mmcli)
        }
        let cell = plan.cells[index].identity
        return NetworkScan(format: .mmcli, cells: [CellObservation(mcc: cell.mcc, mnc: cell.mnc, lac: nil, tac: cell.area, cell: cell.cell)])
    }

    /// The strongest sector at a place, each sector's signal changed by `shadowDB(index)`.
    static func servingCell(_ plan: CityPlan, east: Double, north: Double, shadowDB: (Int) -> Double = { _ in 0 }) -> Int? {
        var best: (index: Int, signal: Double)?
        for (index, cell) in plan.cells.enumerated() {
            let dx = east - cell.east, dy = north - cell.north
            let distance = hypot(dx, dy)
            var off = abs((atan2(dx, dy) * 180 / .pi - cell.azimuth).truncatingRemainder(dividingBy: 360))
            if off > 180 { off = 360 - off }
            var signal = -25 - 35 * log10(max(distance, 1)) - min(12 * pow(off / 65, 2), 20)
            signal += shadowDB(index)
            if best.map({ signal > $0.signal }) ?? true { best = (index, signal) }
        }
        return best?.index
    }
}

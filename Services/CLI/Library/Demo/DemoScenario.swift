import LocusProtocol

/// The embedded demo: a car drives past a store (the seeds' 200 m fence at 31.2304,
/// 121.4737), through a plaza polygon, and loses GNSS for a few seconds in a short tunnel
/// on the way — enough to show enter, exit, dwell-free crossings, dead reckoning and
/// notifications in about a minute, with no file or network needed.
enum DemoScenario {
    static let device = "demo-car"
    static let owner = "demo"

    /// lat,lon waypoints driven at `metresPerSecond`.
    static let waypoints: [(lat: Double, lon: Double)] = [
        (31.2280, 121.4700), (31.2304, 121.4737), (31.2330, 121.4775), (31.2345, 121.4800),
    ]
    static let metresPerSecond = 20.0
    /// Seconds after the start when GNSS drops out, and for how long.
    static let outageStart = 18.0
    static let outageSeconds = 6.0

    static var providerArguments: [String] {
        ["sim", "--waypoints", waypoints.map { "\($0.lat),\($0.lon)" }.joined(separator: ";"),
         "--mps", String(metresPerSecond), "--hz", "1", "--hacc", "5", "--seed", "1",
         "--outage", "\(Int(outageStart))+\(Int(outageSeconds))", "--device-id", device, "--source", "gps"]
    }

    static let regions: [Region] = [
        Region(id: "store", shape: .circle(center: GeoPoint(lon: 121.4737, lat: 31.2304), radius: 200)),
        Region(id: "plaza", shape: .polygon([[
            GeoPoint(lon: 121.4777, lat: 31.2330), GeoPoint(lon: 121.4797, lat: 31.2330),
            GeoPoint(lon: 121.4797, lat: 31.2346), GeoPoint(lon: 121.4777, lat: 31.2346),
            GeoPoint(lon: 121.4777, lat: 31.2330),
        ]])),
        Region(id: "depot", shape: .circle(center: GeoPoint(lon: 121.4650, lat: 31.2360), radius: 150)),
    ]
}

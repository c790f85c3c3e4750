import LocusService
import LocusFusion
import LocusGeo
import LocusProtocol

/// Builds raw-fix messages and feeds them to a logic, collecting what comes out by topic.
struct FusionHarness {
    var logic: FusionLogic
    var counter = 0
    var output: [Outbound] = []

    init(configuration: FusionConfiguration = FusionConfiguration(), store: LastKnownStore? = nil) {
        logic = FusionLogic(configuration: configuration, store: store)
    }

    @discardableResult
    mutating func fix(_ device: String, lat: Double, lon: Double, hacc: Double = 5, t: Double, source: String = "gps",
                      id: String? = nil, topicDevice: String? = nil, age: Double? = nil, arrival: Double? = nil) -> [Outbound] {
        counter += 1
        let location = Location(device: device, source: source, lat: lat, lon: lon, hacc: hacc, mode: "3d", age: age)
        let message = Message(body: .location(location), id: id ?? "m\(counter)", t: t, src: "test/fix")
        let out = logic.receive(message, topic: Topic.locationRaw(topicDevice ?? device), now: arrival ?? t)
        output += out
        return out
    }

    @discardableResult
    mutating func send(_ body: Body, topic: String, t: Double) -> [Outbound] {
        counter += 1
        let out = logic.receive(Message(body: body, id: "m\(counter)", t: t, src: "test/cmd"), topic: topic, now: t)
        output += out
        return out
    }

    /// What was published on `topic`, with the times of the messages.
    func published(on topic: String) -> [(t: Double, location: Location)] {
        output.compactMap { out in
            guard out.topic == topic, case .location(let location) = out.body else { return nil }
            return (out.t, location)
        }
    }

    func locations(on topic: String) -> [Location] {
        output.compactMap { out in
            guard out.topic == topic, case .location(let location) = out.body else { return nil }
            return location
        }
    }

    func errors() -> [ErrorReport] {
        output.compactMap { out in
            guard out.topic == Topic.error("fusion"), case .error(let report) = out.body else { return nil }
            return report
        }
    }
}

/// A point `east`/`north` metres from a base, for building tracks.
func offset(_ base: Coordinate, east: Double, north: Double) -> Coordinate {
    LocalTangentPlane(origin: base).unproject(east: east, north: north)
}

let testBase = Coordinate(lat: 37.4, lon: -122.1)
let testEpoch = 1_700_000_000.0

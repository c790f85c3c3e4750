@testable import LocusProtocol

/// One valid message per v1 body case: `full` with every optional set, `minimal` with none.
enum Samples {
    static let square: [GeoPoint] = [
        GeoPoint(lon: 8.54, lat: 47.37), GeoPoint(lon: 8.55, lat: 47.37), GeoPoint(lon: 8.55, lat: 47.38),
        GeoPoint(lon: 8.54, lat: 47.38), GeoPoint(lon: 8.54, lat: 47.37),
    ]
    static let hole: [GeoPoint] = [
        GeoPoint(lon: 8.544, lat: 47.374), GeoPoint(lon: 8.546, lat: 47.374), GeoPoint(lon: 8.546, lat: 47.376),
        GeoPoint(lon: 8.544, lat: 47.374),
    ]
    static let circleRegion = Region(
        id: "home", shape: .circle(center: GeoPoint(lon: 8.5417, lat: 47.3769), radius: 150),
        notifyOnEntry: true, notifyOnExit: false, dwell: 300, devices: ["truck-7", "van-2"])
    static let polygonRegion = Region(id: "depot", shape: .polygon([square, hole]))
    static let multiRegion = Region(id: "yards", shape: .multiPolygon([[square], [hole]]), notifyOnEntry: false)
    static let fix = FixRef(lat: 47.3769, lon: 8.5417, hacc: 6.5, t: 1_715_000_000.5)

    static let fullBodies: [Body] = [
        .location(Location(
            device: "truck-7", source: "gps", lat: 37.42199830000001, lon: -122.08400000000002, hacc: 4.8,
            alt: -12.25, vacc: 7.5, speed: 13.4, speedAcc: 0.5, course: 359.99, courseAcc: 2.5, mode: "3d",
            sats: 11, hdop: 0.9, tier: "high", age: 1.5)),
        .regionAdd(RegionAdd(owner: "alice", region: circleRegion)),
        .regionRemove(RegionRemove(owner: "alice", regionId: "home")),
        .regionListRequest(RegionListRequest(owner: "alice")),
        .regionRequestState(RegionRequestState(owner: "alice", regionId: "home", device: "truck-7")),
        .regionAdded(RegionAdded(owner: "alice", region: polygonRegion, re: "cmd-1", effectiveRadius: 200)),
        .regionRemoved(RegionRemoved(owner: "alice", regionId: "home", re: "cmd-2")),
        .regionFailed(RegionFailed(owner: "alice", regionId: "tiny", code: .radiusTooSmall, message: "radius 1 m is below 100 m", re: "cmd-3")),
        .regionList(RegionListReply(owner: "alice", regions: [circleRegion, polygonRegion, multiRegion], re: "cmd-4")),
        .regionEvent(RegionEvent(
            owner: "alice", regionId: "home", device: "truck-7", event: .enter, state: .inside, cause: .crossing,
            location: fix, crossingTime: 1_715_000_000.25, re: "cmd-5")),
        .authRequest(AuthRequest(client: "app-1", level: "temporaryFull", purpose: "turn-by-turn")),
        .authSet(AuthSet(client: "app-1", status: .always, accuracy: .reduced)),
        .authStatus(AuthStatus(
            client: "app-1", status: .whenInUse, accuracy: .full,
            temporaryFull: TemporaryFull(purpose: "turn-by-turn", expires: 1_715_003_600))),
        .motion(Motion(device: "truck-7", activity: .automotive, confidence: .high)),
        .control(Control(device: "truck-7", desiredAccuracy: 10, distanceFilter: 5, paused: false, powerMode: .low, reason: "stationary")),
        .visit(Visit(device: "truck-7", lat: 47.3769, lon: 8.5417, hacc: 25, arrival: 1_715_000_000, departure: 1_715_003_000)),
        .notification(Notification(ref: "evt-1", title: "Arrived", body: "truck-7 entered home", sink: "stdout", status: .delivered)),
        .health(Health(service: "fusion", state: .degraded, uptime: 12.5, counters: ["received": 10, "rejected": 2], detail: ["gps": "stale"])),
        .error(ErrorReport(code: "invalidJSON", message: "bad body", topic: "location.raw.x", ref: "m-9")),
    ]

    static let minimalBodies: [Body] = [
        .location(Location(device: "d", source: "wifi", lat: -90, lon: 180, hacc: 0.001)),
        .regionAdd(RegionAdd(owner: "o", region: Region(id: "r", shape: .polygon([square])))),
        .regionRequestState(RegionRequestState(owner: "o")),
        .regionAdded(RegionAdded(owner: "o", region: multiRegion)),
        .regionRemoved(RegionRemoved(owner: "o", regionId: "r")),
        .regionFailed(RegionFailed(owner: "o", regionId: "r", code: .notAuthorized, message: "")),
        .regionList(RegionListReply(owner: "o", regions: [])),
        .regionEvent(RegionEvent(owner: "o", regionId: "r", device: "d", event: .state, state: .unknown, cause: .requested, location: fix)),
        .authRequest(AuthRequest(client: "c", level: "whenInUse")),
        .authSet(AuthSet(client: "c")),
        .authStatus(AuthStatus(client: "c", status: .notDetermined, accuracy: .reduced)),
        .control(Control(device: "d")),
        .visit(Visit(device: "d", lat: 0, lon: 0, hacc: 1, arrival: 0)),
        .health(Health(service: "bus", state: .ok)),
        .error(ErrorReport(code: "x", message: "y")),
    ]

    static func message(_ body: Body, seq: Int? = 7) -> Message {
        Message(body: body, id: "id-\(body.type)", t: 1_715_000_000.125, src: "test/samples", seq: seq)
    }

    /// The encoded sample as a JSON tree, to mutate into malformed variants.
    static func tree(_ body: Body) -> [String: JSONValue] {
        let bytes = MessageCodec.encode(message(body))
        let value = bytes.withUnsafeBytes { raw -> JSONValue in
            var scanner = JSONScanner(raw)
            return try! scanner.readValue()
        }
        return value.objectValue!
    }

    static func bytes(_ tree: [String: JSONValue]) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(JSONValue.object(tree))
        return writer.bytes
    }
}

extension JSONValue {
    /// A copy with the member at `path` replaced (nil removes it).
    func setting(_ path: ArraySlice<String>, to newValue: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var members) = self else { return self }
        if path.count == 1 {
            members[key] = newValue
        } else if let child = members[key] {
            members[key] = child.setting(path.dropFirst(), to: newValue)
        }
        return .object(members)
    }
}

/// Valid messages of every v1 type, with the optional fields set and unset, and region
/// shapes near the edges the validators care about (holes, the antimeridian, the poles).
enum SeedMessages {
    static func ring(_ points: [(lon: Double, lat: Double)]) -> [GeoPoint] {
        let ring = points.map { GeoPoint(lon: $0.lon, lat: $0.lat) }
        return ring + [ring[0]]
    }

    static let block = ring([(13.40, 52.50), (13.42, 52.50), (13.42, 52.52), (13.40, 52.52)])
    static let courtyard = ring([(13.405, 52.505), (13.41, 52.505), (13.41, 52.51)])
    static let eastOfDateLine = ring([(179.9, -16.9), (180, -16.9), (180, -16.7), (179.9, -16.7)])
    static let westOfDateLine = ring([(-180, -16.9), (-179.8, -16.9), (-179.8, -16.7), (-180, -16.7)])
    static let polar = ring([(-10, 89.5), (10, 89.5), (0, 89.9)])

    static let regions: [Region] = [
        Region(id: "office", shape: .circle(center: GeoPoint(lon: 13.41, lat: 52.51), radius: 120)),
        Region(id: "pole", shape: .circle(center: GeoPoint(lon: 0, lat: 89.99), radius: 50_000), dwell: 60),
        Region(id: "block", shape: .polygon([block, courtyard]), notifyOnEntry: false, devices: ["bike-1"]),
        Region(id: "fiji", shape: .multiPolygon([[eastOfDateLine], [westOfDateLine]]), notifyOnExit: false),
        Region(id: "cap", shape: .polygon([polar])),
    ]

    static let fix = FixRef(lat: 52.51, lon: 13.41, hacc: 8, t: 1_715_000_000)

    static let bodies: [Body] = regions.map { .regionAdd(RegionAdd(owner: "ops", region: $0)) } + [
        .location(Location(device: "bike-1", source: "gps", lat: 52.5101, lon: 13.4102, hacc: 3.5, alt: 41.5, vacc: 6,
                           speed: 4.25, speedAcc: 0.3, course: 271.5, courseAcc: 4, mode: "3d", sats: 9, hdop: 1.1)),
        .location(Location(device: "bike-1", source: "wifi", lat: -33.86, lon: 151.21, hacc: 40)),
        .regionRemove(RegionRemove(owner: "ops", regionId: "office")),
        .regionListRequest(RegionListRequest(owner: "ops")),
        .regionRequestState(RegionRequestState(owner: "ops", regionId: "block", device: "bike-1")),
        .regionAdded(RegionAdded(owner: "ops", region: regions[2], re: "seed-2", effectiveRadius: 150)),
        .regionRemoved(RegionRemoved(owner: "ops", regionId: "office", re: "seed-3")),
        .regionFailed(RegionFailed(owner: "ops", regionId: "dot", code: .radiusTooSmall, message: "radius below the minimum")),
        .regionList(RegionListReply(owner: "ops", regions: regions, re: "seed-4")),
        .regionEvent(RegionEvent(owner: "ops", regionId: "block", device: "bike-1", event: .exit, state: .outside,
                                 cause: .crossing, location: fix, crossingTime: 1_714_999_999.5)),
        .authRequest(AuthRequest(client: "app", level: "temporaryFull", purpose: "navigation")),
        .authSet(AuthSet(client: "app", status: .denied, accuracy: .reduced)),
        .authStatus(AuthStatus(client: "app", status: .always, accuracy: .full,
                               temporaryFull: TemporaryFull(purpose: "navigation", expires: 1_715_000_600))),
        .motion(Motion(device: "bike-1", activity: .cycling, confidence: .medium)),
        .control(Control(device: "bike-1", desiredAccuracy: 100, distanceFilter: 25, paused: true, powerMode: .normal, reason: "battery")),
        .visit(Visit(device: "bike-1", lat: 52.51, lon: 13.41, hacc: 30, arrival: 1_714_990_000, departure: nil)),
        .notification(Notification(ref: "seed-9", title: "Left the block", body: "bike-1 \u{2192} outside", sink: "webhook", status: .retrying)),
        .health(Health(service: "geofence", state: .ok, uptime: 3600, counters: ["received": 12, "dropped": 0])),
        .error(ErrorReport(code: "invalidJSON", message: "line 3: unexpected '}'", topic: "region.cmd", ref: "seed-1")),
        .other(type: "x.custom", fields: .object(["note": .string("tolerant readers keep unknown types"),
                                                  "n": .number(1.5e-7), "list": .array([.bool(true), .null])])),
    ]

    static func topic(for body: Body) -> String {
        switch body {
        case .location: "location.raw.bike-1"
        case .regionAdd, .regionRemove, .regionListRequest, .regionRequestState: "region.cmd"
        case .regionAdded, .regionRemoved, .regionFailed, .regionList: "region.state.ops"
        case .regionEvent: "region.event.ops"
        case .authRequest, .authSet: "auth.cmd"
        case .authStatus: "auth.status.app"
        case .motion: "motion.bike-1"
        case .control: "control.bike-1"
        case .visit: "visit.bike-1"
        case .notification: "notify.webhook"
        case .health: "health.geofence"
        case .error: "error.geofence"
        case .other: "x.custom"
        }
    }
}

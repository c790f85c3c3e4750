import LocusProtocol

/// Traccar Client's JSON report (version 9 and later): `device_id` and a `location` with an
/// ISO 8601 `timestamp`, `coords` (latitude, longitude, accuracy, speed in m/s, heading,
/// altitude; a negative speed or heading means unknown) and `battery.level` from 0 to 1.
enum OsmAndJSON {
    struct Root: Decodable {
        var device_id: String
        var token: String?
        var location: Location
    }

    struct Location: Decodable {
        var timestamp: String
        var coords: Coordinates?
        var battery: Battery?
    }

    struct Coordinates: Decodable {
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        var speed: Double?
        var heading: Double?
        var altitude: Double?
    }

    struct Battery: Decodable {
        var level: Double?
    }

    static func read(_ body: [UInt8], now: Double) throws(PhoneRefusal) -> OsmAndReport {
        let root = try PhoneJSON.decode(Root.self, from: body, what: "the Traccar Client report")
        guard !root.device_id.isEmpty, Topic.isValidID(root.device_id) else {
            throw PhoneRefusal(.badDevice, "device_id '\(root.device_id.prefix(40))' is not a valid device id")
        }
        var report = OsmAndReport(device: root.device_id, token: root.token, format: .json, fix: nil)
        guard let coords = root.location.coords else { return report }
        guard let time = ISO8601Time.unixSeconds(root.location.timestamp) else {
            throw PhoneRefusal(.badTime, "location.timestamp '\(root.location.timestamp.prefix(40))' is not an ISO 8601 time")
        }
        report.fix = PhoneFix(
            device: root.device_id, t: try PhoneFields.time(time, field: "location.timestamp", now: now),
            lat: try PhoneFields.latitude(coords.latitude, field: "location.coords.latitude"),
            lon: try PhoneFields.longitude(coords.longitude, field: "location.coords.longitude"),
            hacc: try PhoneFields.accuracy(coords.accuracy, field: "location.coords.accuracy"),
            altitude: try PhoneFields.altitude(coords.altitude, field: "location.coords.altitude"),
            speed: try PhoneFields.speed(coords.speed, field: "location.coords.speed"),
            course: try PhoneFields.course(coords.heading, field: "location.coords.heading"),
            battery: try PhoneFields.battery(root.location.battery?.level.map { $0 >= 0 ? $0 * 100 : $0 }, field: "location.battery.level"))
        return report
    }
}

import LocusProtocol

/// Reads one OwnTracks MQTT message: the topic `owntracks/<user>/<device>` names the phone,
/// the JSON payload with `_type: location` carries the fix (lat, lon, tst required; acc,
/// alt, vac, vel in km/h, cog, batt, tid optional). Other `_type`s (lwt, transition,
/// waypoint, card, status, …) are not positions and are passed over, not refused.
public enum OwnTracksReport {
    public enum Outcome: Sendable, Equatable {
        case fix(PhoneFix)
        /// A message of another `_type`, not a position.
        case ignored(type: String)
    }

    /// How the Locus device id is made from the topic.
    public enum DeviceNaming: String, Sendable, CaseIterable {
        /// `<device>` (the default: one person's phones).
        case device
        /// `<user>-<device>` (several people whose phones share names).
        case userDevice = "user-device"
    }

    struct Payload: Decodable {
        var type: String
        var lat: Double?
        var lon: Double?
        var tst: Double?
        var acc: Double?
        var alt: Double?
        var vac: Double?
        var vel: Double?
        var cog: Double?
        var batt: Double?
        var tid: String?

        enum CodingKeys: String, CodingKey {
            case type = "_type"
            case lat, lon, tst, acc, alt, vac, vel, cog, batt, tid
        }
    }

    /// The fix in `payload` published on `topic`, read at wall time `now`.
    public static func read(topic: String, payload: [UInt8], naming: DeviceNaming = .device, now: Double) throws(PhoneRefusal) -> Outcome {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 3, !levels[levels.count - 1].isEmpty, !levels[levels.count - 2].isEmpty else {
            throw PhoneRefusal(.badDevice, "topic '\(topic)' is not owntracks/<user>/<device>")
        }
        let user = String(levels[levels.count - 2])
        let name = String(levels[levels.count - 1])
        let body = try PhoneJSON.decode(Payload.self, from: payload, what: "the OwnTracks message on \(topic)")
        guard body.type == "location" else {
            if body.type == "encrypted" {
                throw PhoneRefusal(.encrypted, "the message on \(topic) is encrypted; Locus reads plain location messages (turn payload encryption off and use TLS to the broker)")
            }
            return .ignored(type: body.type)
        }
        let device = naming == .device ? name : "\(user)-\(name)"
        guard Topic.isValidID(device) else { throw PhoneRefusal(.badDevice, "topic '\(topic)' gives '\(device)', not a valid device id") }
        guard let lat = body.lat else { throw PhoneRefusal(.missingField, "the location on \(topic) has no 'lat'") }
        guard let lon = body.lon else { throw PhoneRefusal(.missingField, "the location on \(topic) has no 'lon'") }
        guard let tst = body.tst else { throw PhoneRefusal(.missingField, "the location on \(topic) has no 'tst'") }
        let fix = PhoneFix(
            device: device, t: try PhoneFields.time(tst, field: "tst", now: now),
            lat: try PhoneFields.latitude(lat, field: "lat"), lon: try PhoneFields.longitude(lon, field: "lon"),
            hacc: try PhoneFields.accuracy(body.acc, field: "acc"), altitude: try PhoneFields.altitude(body.alt, field: "alt"),
            vacc: try PhoneFields.accuracy(body.vac, field: "vac"),
            speed: try PhoneFields.speed(body.vel.map { $0 / 3.6 }, field: "vel"),
            course: try PhoneFields.course(body.cog, field: "cog"), battery: try PhoneFields.battery(body.batt, field: "batt"))
        return .fix(fix)
    }
}

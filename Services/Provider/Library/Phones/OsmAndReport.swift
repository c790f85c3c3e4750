public import LocusNet
import LocusProtocol

/// Reads one OsmAnd / Traccar Client report the way Traccar's OsmAnd protocol does: fields
/// from the query string, or, when there is none, from a form body (`id` or `deviceid`,
/// `valid`, `timestamp`, `lat`, `lon` or `location=lat,lon`, `speed` in knots, `bearing` or
/// `heading`, `altitude`, `accuracy`, `hdop`, `batt`); or Traccar Client's JSON
/// (`Content-Type: application/json`, `device_id` and `location.coords` with speed in m/s).
/// Locus adds one field, `token` (or `Authorization: Bearer TOKEN`), to authenticate a device.
public struct OsmAndReport: Sendable, Equatable {
    public enum Format: Sendable, Equatable {
        case form, json
    }

    public var device: String
    public var token: String?
    public var format: Format
    /// The position, or nil when the report carries none (a heartbeat) or says `valid=false`.
    public var fix: PhoneFix?

    /// 1 knot in m/s (1852 m per hour).
    static let metersPerSecondPerKnot = 1852.0 / 3600.0

    /// The report in `request`, received at wall time `now` (a report without a time is taken as now, as Traccar does).
    public static func read(_ request: HTTPRequest, now: Double) throws(PhoneRefusal) -> OsmAndReport {
        let bearer = request.head.headers["authorization"].flatMap { header -> String? in
            let parts = header.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : nil
        }
        if let type = request.head.headers["content-type"], type.lowercased().hasPrefix("application/json") {
            var report = try OsmAndJSON.read(request.body, now: now)
            // Traccar Client keeps the query of its server URL (`https://host:5055/?token=…`) when it posts JSON.
            let fromURL = try? request.head.query.map { try QueryString.parse($0) }?.last { $0.name == "token" }?.value
            report.token = report.token ?? fromURL ?? bearer
            return report
        }
        let text: Substring
        if let query = request.head.query, !query.isEmpty {
            text = query
        } else {
            guard let body = String(validating: request.body, as: UTF8.self) else {
                throw PhoneRefusal(.malformed, "the form body is not UTF-8")
            }
            text = Substring(body)
        }
        let pairs: [(name: String, value: String)]
        do { pairs = try QueryString.parse(text) } catch { throw PhoneRefusal(.malformed, error.message) }
        var fields: [String: String] = [:]
        for (name, value) in pairs { fields[name] = value }  // a repeated field: the last one counts
        return try read(fields: fields, bearer: bearer, now: now)
    }

    static func read(fields: [String: String], bearer: String?, now: Double) throws(PhoneRefusal) -> OsmAndReport {
        guard let device = fields["id"] ?? fields["deviceid"], !device.isEmpty else {
            throw PhoneRefusal(.missingField, "the report has no 'id' (or 'deviceid')")
        }
        guard Topic.isValidID(device) else { throw PhoneRefusal(.badDevice, "id '\(device)' is not a valid device id") }
        var report = OsmAndReport(device: device, token: fields["token"] ?? bearer, format: .form, fix: nil)
        func number(_ name: String) throws(PhoneRefusal) -> Double? {
            guard let text = fields[name] else { return nil }
            guard let value = Double(text.trimmingSpaces()) else { throw PhoneRefusal(.malformed, "\(name) '\(text.prefix(40))' is not a number") }
            try PhoneFields.finite(value, name)
            return value
        }
        if let valid = fields["valid"], !(valid == "true" || valid == "1") {
            guard valid == "false" || valid == "0" else { throw PhoneRefusal(.malformed, "valid '\(valid.prefix(20))' is not true, false, 1 or 0") }
            return report  // the phone says the position is not valid: answered, not published
        }
        var lat = try number("lat")
        var lon = try number("lon")
        if let location = fields["location"] {
            let parts = location.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let first = Double(parts[0].trimmingSpaces()), let second = Double(parts[1].trimmingSpaces()) else {
                throw PhoneRefusal(.malformed, "location '\(location.prefix(40))' is not LAT,LON")
            }
            (lat, lon) = (first, second)
        }
        guard let lat, let lon else {
            if fields["lat"] != nil || fields["lon"] != nil {
                throw PhoneRefusal(.missingField, "the report of \(device) has \(fields["lat"] == nil ? "lon without lat" : "lat without lon")")
            }
            return report  // a heartbeat (battery, no position)
        }
        let bearing = try number("bearing")
        let heading = try number("heading")
        var time = now
        if let text = fields["timestamp"] { time = try timestamp(text) }
        report.fix = PhoneFix(
            device: device, t: try PhoneFields.time(time, field: "timestamp", now: now),
            lat: try PhoneFields.latitude(lat, field: "lat"), lon: try PhoneFields.longitude(lon, field: "lon"),
            hacc: try PhoneFields.accuracy(try number("accuracy"), field: "accuracy"),
            altitude: try PhoneFields.altitude(try number("altitude"), field: "altitude"),
            speed: try PhoneFields.speed(try number("speed").map { $0 * metersPerSecondPerKnot }, field: "speed"),
            course: try PhoneFields.course(bearing ?? heading, field: bearing != nil ? "bearing" : "heading"),
            battery: try PhoneFields.battery(try number("batt"), field: "batt"))
        return report
    }

    /// Traccar's timestamp forms: whole seconds (milliseconds when the number is 2³¹ or more),
    /// ISO 8601 (`2024-07-30T14:30:00Z`), or `yyyy-MM-dd HH:mm:ss` (read as UTC).
    static func timestamp(_ text: String) throws(PhoneRefusal) -> Double {
        let trimmed = text.trimmingSpaces()
        if let whole = Int64(trimmed) { return whole < Int64(Int32.max) ? Double(whole) : Double(whole) / 1000 }
        if let seconds = Double(trimmed), seconds.isFinite { return seconds }
        if let parsed = ISO8601Time.unixSeconds(trimmed) { return parsed }
        throw PhoneRefusal(.badTime, "timestamp '\(text.prefix(40))' is neither Unix seconds, milliseconds nor an ISO 8601 time")
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

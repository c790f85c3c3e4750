import LocusProtocol

/// Commands the notifier accepts on `notify.request` (types outside docs/protocol.md's v1
/// list, kept by the codec as `.other`): `notify.request` {title, body, device?},
/// `destination.set` {device, lat, lon, radius?, step?}, `destination.clear` {device}.
enum NotifyRequest: Equatable {
    case notify(title: String, body: String, device: String?)
    case setDestination(device: String, lat: Double, lon: Double, radiusMeters: Double?, stepMeters: Double?)
    case clearDestination(device: String)

    static let notifyType = Topic.notifyRequest
    static let setType = "destination.set"
    static let clearType = "destination.clear"

    /// Reads a request, or says which field is wrong.
    init(type: String, fields: JSONValue) throws(NotifyRequestError) {
        guard let object = fields.objectValue else { throw NotifyRequestError("the body must be an object") }
        func string(_ name: String) -> String? {
            if case .string(let value)? = object[name] { return value }
            return nil
        }
        func number(_ name: String) throws(NotifyRequestError) -> Double? {
            guard let value = object[name] else { return nil }
            guard case .number(let number) = value, number.isFinite else { throw NotifyRequestError("'\(name)' must be a number") }
            return number
        }
        switch type {
        case Self.notifyType:
            guard let title = string("title"), let body = string("body") else {
                throw NotifyRequestError("notify.request needs string fields 'title' and 'body'")
            }
            self = .notify(title: title, body: body, device: string("device"))
        case Self.setType:
            guard let device = string("device"), Topic.isValidID(device) else { throw NotifyRequestError("destination.set needs a valid 'device'") }
            guard let lat = try number("lat"), let lon = try number("lon"), abs(lat) <= 90, abs(lon) <= 180 else {
                throw NotifyRequestError("destination.set needs 'lat' in [-90, 90] and 'lon' in [-180, 180]")
            }
            let radius = try number("radius")
            let step = try number("step")
            if let radius, radius <= 0 { throw NotifyRequestError("'radius' must be > 0 metres") }
            if let step, step <= 0 { throw NotifyRequestError("'step' must be > 0 metres") }
            self = .setDestination(device: device, lat: lat, lon: lon, radiusMeters: radius, stepMeters: step)
        case Self.clearType:
            guard let device = string("device") else { throw NotifyRequestError("destination.clear needs 'device'") }
            self = .clearDestination(device: device)
        default:
            throw NotifyRequestError("unknown request type '\(type)' (expected notify.request, destination.set or destination.clear)")
        }
    }
}

struct NotifyRequestError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

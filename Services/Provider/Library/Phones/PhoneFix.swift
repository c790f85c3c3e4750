public import LocusProtocol

/// One position a phone reported, in the units Locus uses, before it becomes a `location`:
/// what OwnTracks and OsmAnd/Traccar Client reports have in common once read and checked.
public struct PhoneFix: Sendable, Equatable {
    /// The Locus device id the report names (a topic id).
    public var device: String
    /// Fix time, Unix seconds.
    public var t: Double
    public var lat: Double
    public var lon: Double
    /// Horizontal accuracy, metres; nil when the report carries none.
    public var hacc: Double?
    /// Altitude as the phone reported it, metres (see `PhoneMapping.altitude`).
    public var altitude: Double?
    /// Vertical accuracy of `altitude`, metres.
    public var vacc: Double?
    /// Ground speed, m/s.
    public var speed: Double?
    /// Course over ground, degrees true in [0, 360).
    public var course: Double?
    /// Battery level, percent.
    public var battery: Int?

    public init(device: String, t: Double, lat: Double, lon: Double, hacc: Double? = nil, altitude: Double? = nil,
                vacc: Double? = nil, speed: Double? = nil, course: Double? = nil, battery: Int? = nil) {
        self.device = device
        self.t = t
        self.lat = lat
        self.lon = lon
        self.hacc = hacc
        self.altitude = altitude
        self.vacc = vacc
        self.speed = speed
        self.course = course
        self.battery = battery
    }
}

/// How a phone's report becomes a Locus `location`, said once for both protocols
/// (docs/phones.md has the table).
///
/// - `source`: a phone's position is the operating system's own estimate — satellites,
///   Wi-Fi and cells mixed, and the report does not say which — so it is not `gps`: the
///   default word `phone` is a plugin's word, which `locus-fusion` trusts at 1.5 × its claim.
/// - `hacc` is the phone's accuracy as is (Android documents it as the 68 % radius, the same
///   definition Locus uses); a report without one is refused unless `assumedHacc` is set.
/// - altitude: OwnTracks documents `alt` as above sea level, Android phones report the
///   height above the WGS-84 ellipsoid and iPhones above sea level; Locus's `alt` is the
///   ellipsoidal height and there is no geoid model here, so altitude (and `vacc`) is left
///   out unless `altitude` is `.ellipsoid` (the operator knows the phones report that).
public struct PhoneMapping: Sendable, Equatable {
    public enum Altitude: String, Sendable, CaseIterable {
        case drop, ellipsoid
    }

    public var source = "phone"
    public var assumedHacc: Double?
    public var altitude = Altitude.drop

    public init() {}

    /// The `location` of `fix`, or the refusal when its accuracy is unknown and none is assumed.
    public func location(_ fix: PhoneFix) throws(PhoneRefusal) -> Location {
        guard let hacc = fix.hacc ?? assumedHacc else {
            throw PhoneRefusal(.noAccuracy, "the report of \(fix.device) carries no accuracy; give --hacc to assume one")
        }
        let keepsAltitude = altitude == .ellipsoid && fix.altitude != nil
        return Location(device: fix.device, source: source, lat: fix.lat, lon: fix.lon, hacc: hacc,
                        alt: keepsAltitude ? fix.altitude : nil, vacc: keepsAltitude ? fix.vacc : nil,
                        speed: fix.speed, course: fix.course)
    }
}

/// Why a phone's report was refused: a code for `error.provider` and the health counters
/// (`source.refused.<code>`), and a message for a person that names the field.
public struct PhoneRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// Not JSON / not a form, or a field of the wrong type.
        case malformed
        /// A required field is absent.
        case missingField
        /// A number outside its documented range, or not finite.
        case outOfRange
        /// A timestamp too far in the future or before 2000.
        case badTime
        /// No accuracy and none assumed.
        case noAccuracy
        /// The device id cannot name a Locus device.
        case badDevice
        /// The device is not among those allowed, or more devices than allowed.
        case unknownDevice
        /// No token, or the wrong one, for the device.
        case unauthenticated
        /// Encrypted OwnTracks payloads (not read here).
        case encrypted
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

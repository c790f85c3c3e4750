/// The general decode path: from a body's members to typed structs, one function per
/// type. Structure and JSON types are checked here; ranges, ids and words are checked
/// afterwards by `Message.validate()`, the same path senders use.
enum BodyDecoder {
    static func decodeEnvelope(_ members: [String: JSONValue]) throws(ProtocolError) -> Envelope {
        var fields = FieldReader(members: members, path: "", check: Checker(type: "envelope"))
        let version = try fields.int("v")
        guard version == LocusProtocolVersion.current else {
            throw fields.check.failure(.unsupportedVersion, "v", "version \(version) is not supported (this reader speaks v\(LocusProtocolVersion.current))")
        }
        let type = try fields.string("type")
        if !type.isEmpty { fields = FieldReader(members: members, path: "", check: Checker(type: type)) }
        return Envelope(
            v: version, type: type, id: try fields.string("id"), t: try fields.double("t"),
            src: try fields.string("src"), seq: try fields.optionalInt("seq"), tseq: try fields.optionalInt("tseq"))
    }

    static func decodeBody(type: String, members: [String: JSONValue]) throws(ProtocolError) -> Body {
        let fields = FieldReader(members: members, path: "", check: Checker(type: type))
        switch type {
        case MessageType.location: return .location(try location(fields))
        case MessageType.regionAdd:
            return .regionAdd(RegionAdd(owner: try fields.string("owner"), region: try region(try fields.object("region"))))
        case MessageType.regionRemove:
            return .regionRemove(RegionRemove(owner: try fields.string("owner"), regionId: try fields.string("regionId")))
        case MessageType.regionList:
            let owner = try fields.string("owner")
            guard let elements = try fields.optionalArray("regions") else {
                return .regionListRequest(RegionListRequest(owner: owner))
            }
            var regions: [Region] = []
            for (index, element) in elements.enumerated() {
                regions.append(try region(try fields.asObject(element, "regions[\(index)]")))
            }
            return .regionList(RegionListReply(owner: owner, regions: regions, re: try fields.optionalString("re")))
        case MessageType.regionRequestState:
            return .regionRequestState(RegionRequestState(
                owner: try fields.string("owner"), regionId: try fields.optionalString("regionId"),
                device: try fields.optionalString("device")))
        case MessageType.regionAdded:
            return .regionAdded(RegionAdded(
                owner: try fields.string("owner"), region: try region(try fields.object("region")),
                re: try fields.optionalString("re"), effectiveRadius: try fields.optionalDouble("effectiveRadius")))
        case MessageType.regionRemoved:
            return .regionRemoved(RegionRemoved(
                owner: try fields.string("owner"), regionId: try fields.string("regionId"), re: try fields.optionalString("re")))
        case MessageType.regionFailed:
            return .regionFailed(RegionFailed(
                owner: try fields.string("owner"), regionId: try fields.string("regionId"),
                code: try fields.word("code"), message: try fields.string("message"), re: try fields.optionalString("re")))
        case MessageType.regionEvent: return .regionEvent(try regionEvent(fields))
        case MessageType.authRequest:
            return .authRequest(AuthRequest(
                client: try fields.string("client"), level: try fields.string("level"), purpose: try fields.optionalString("purpose")))
        case MessageType.authSet:
            return .authSet(AuthSet(
                client: try fields.string("client"), status: try fields.optionalWord("status"),
                accuracy: try fields.optionalWord("accuracy")))
        case MessageType.authStatus:
            var grant: TemporaryFull?
            if let object = try fields.optionalObject("temporaryFull") {
                grant = TemporaryFull(purpose: try object.string("purpose"), expires: try object.double("expires"))
            }
            return .authStatus(AuthStatus(
                client: try fields.string("client"), status: try fields.word("status"),
                accuracy: try fields.word("accuracy"), temporaryFull: grant))
        case MessageType.motion:
            return .motion(Motion(
                device: try fields.string("device"), activity: try fields.word("activity"), confidence: try fields.word("confidence")))
        case MessageType.control:
            return .control(Control(
                device: try fields.string("device"), desiredAccuracy: try fields.optionalDouble("desiredAccuracy"),
                distanceFilter: try fields.optionalDouble("distanceFilter"), paused: try fields.optionalBool("paused"),
                powerMode: try fields.optionalWord("powerMode"), reason: try fields.optionalString("reason")))
        case MessageType.visit:
            return .visit(Visit(
                device: try fields.string("device"), lat: try fields.double("lat"), lon: try fields.double("lon"),
                hacc: try fields.double("hacc"), arrival: try fields.double("arrival"),
                departure: try fields.optionalDouble("departure")))
        case MessageType.notification:
            return .notification(Notification(
                ref: try fields.string("ref"), title: try fields.string("title"), body: try fields.string("body"),
                sink: try fields.string("sink"), status: try fields.word("status")))
        case MessageType.health: return .health(try health(fields))
        case MessageType.error:
            return .error(ErrorReport(
                code: try fields.string("code"), message: try fields.string("message"),
                topic: try fields.optionalString("topic"), ref: try fields.optionalString("ref")))
        default:
            var rest = members
            for key in MessageEncoder.envelopeKeys { rest[key] = nil }
            return .other(type: type, fields: .object(rest))
        }
    }

    private static func location(_ fields: FieldReader) throws(ProtocolError) -> Location {
        Location(
            device: try fields.string("device"), source: try fields.string("source"),
            lat: try fields.double("lat"), lon: try fields.double("lon"), hacc: try fields.double("hacc"),
            alt: try fields.optionalDouble("alt"), vacc: try fields.optionalDouble("vacc"),
            speed: try fields.optionalDouble("speed"), speedAcc: try fields.optionalDouble("speedAcc"),
            course: try fields.optionalDouble("course"), courseAcc: try fields.optionalDouble("courseAcc"),
            mode: try fields.optionalString("mode"), sats: try fields.optionalInt("sats"),
            hdop: try fields.optionalDouble("hdop"), tier: try fields.optionalString("tier"),
            age: try fields.optionalDouble("age"), timeSource: try fields.optionalString("timeSource"))
    }

    private static func regionEvent(_ fields: FieldReader) throws(ProtocolError) -> RegionEvent {
        let fix = try fields.object("location")
        return RegionEvent(
            owner: try fields.string("owner"), regionId: try fields.string("regionId"), device: try fields.string("device"),
            event: try fields.word("event"), state: try fields.word("state"), cause: try fields.word("cause"),
            location: FixRef(lat: try fix.double("lat"), lon: try fix.double("lon"), hacc: try fix.double("hacc"), t: try fix.double("t")),
            crossingTime: try fields.optionalDouble("crossingTime"), re: try fields.optionalString("re"),
            progress: try fields.optionalDouble("progress"), offRoute: try fields.optionalDouble("offRoute"))
    }

    private static func health(_ fields: FieldReader) throws(ProtocolError) -> Health {
        var counters: [String: Int] = [:]
        if let object = try fields.optionalObject("counters") {
            for (name, value) in object.members { counters[name] = try object.asInt(value, name) }
        }
        var detail: [String: String]?
        if let object = try fields.optionalObject("detail") {
            var texts: [String: String] = [:]
            for (name, value) in object.members { texts[name] = try object.asString(value, name) }
            detail = texts
        }
        return Health(
            service: try fields.string("service"), state: try fields.word("state"),
            uptime: try fields.optionalDouble("uptime"), counters: counters, detail: detail)
    }

    // MARK: - Regions and shapes

    private static func region(_ fields: FieldReader) throws(ProtocolError) -> Region {
        var devices: [String]?
        if let elements = try fields.optionalArray("devices") {
            var names: [String] = []
            for (index, element) in elements.enumerated() { names.append(try fields.asString(element, "devices[\(index)]")) }
            devices = names
        }
        return Region(
            id: try fields.string("id"), shape: try shape(try fields.object("shape")),
            notifyOnEntry: try fields.optionalBool("notifyOnEntry") ?? true,
            notifyOnExit: try fields.optionalBool("notifyOnExit") ?? true,
            dwell: try fields.optionalDouble("dwell"), devices: devices, expires: try fields.optionalDouble("expires"),
            activeHours: try activeHours(try fields.optionalObject("activeHours")))
    }

    private static func activeHours(_ fields: FieldReader?) throws(ProtocolError) -> ActiveHours? {
        guard let fields else { return nil }
        var windows: [ActiveWindow] = []
        for (index, element) in try fields.array("windows").enumerated() {
            let window = try fields.asObject(element, "windows[\(index)]")
            var days: [String] = []
            for (number, day) in try window.array("days").enumerated() { days.append(try window.asString(day, "days[\(number)]")) }
            windows.append(ActiveWindow(days: days, start: try window.string("start"), end: try window.string("end")))
        }
        return ActiveHours(timeZone: try fields.string("timeZone"), windows: windows)
    }

    private static func shape(_ fields: FieldReader) throws(ProtocolError) -> RegionShape {
        let type = try fields.string("type")
        switch type {
        case "Circle":
            let center = try point(try fields.required("center"), fields, "center")
            return .circle(center: center, radius: try fields.double("radius"))
        case "Polygon":
            return .polygon(try polygon(try fields.required("coordinates"), fields, "coordinates"))
        case "MultiPolygon":
            let elements = try fields.array("coordinates")
            var polygons: [[[GeoPoint]]] = []
            for (index, element) in elements.enumerated() {
                polygons.append(try polygon(element, fields, "coordinates[\(index)]"))
            }
            return .multiPolygon(polygons)
        case "LineString":
            var line: [GeoPoint] = []
            for (index, element) in try fields.array("coordinates").enumerated() {
                line.append(try point(element, fields, "coordinates[\(index)]"))
            }
            return .corridor(line: line, width: try fields.double("width"))
        default:
            throw fields.check.failure(
                .invalidValue, fields.path + "type", "\(fields.check.quoted(type)) is not a supported shape (Circle, Polygon, MultiPolygon, LineString)")
        }
    }

    private static func polygon(_ value: JSONValue, _ fields: FieldReader, _ name: String) throws(ProtocolError) -> [[GeoPoint]] {
        var rings: [[GeoPoint]] = []
        for (ringIndex, ringValue) in try fields.asArray(value, name).enumerated() {
            let ringName = "\(name)[\(ringIndex)]"
            var ring: [GeoPoint] = []
            for (index, position) in try fields.asArray(ringValue, ringName).enumerated() {
                ring.append(try point(position, fields, "\(ringName)[\(index)]"))
            }
            rings.append(ring)
        }
        return rings
    }

    /// A GeoJSON position `[lon, lat]`; a third element (altitude) is allowed and ignored.
    private static func point(_ value: JSONValue, _ fields: FieldReader, _ name: String) throws(ProtocolError) -> GeoPoint {
        let elements = try fields.asArray(value, name)
        guard elements.count >= 2 else {
            throw fields.check.failure(.invalidValue, fields.path + name, "a position needs [lon, lat], has \(elements.count) numbers")
        }
        return GeoPoint(lon: try fields.asDouble(elements[0], "\(name)[0]"), lat: try fields.asDouble(elements[1], "\(name)[1]"))
    }
}

/// Writes messages as compact JSON: the envelope first (`v`, `type`, `id`, `t`, `src`,
/// `seq`, `tseq`), then the body's fields. Nil optionals are left out, never written as null.
enum MessageEncoder {
    static func encode(_ message: Message) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(message, into: &writer)
        return writer.takeBytes()
    }

    static func encode(_ message: Message, appendingTo output: inout [UInt8]) {
        var writer = JSONWriter(appendingTo: &output)
        write(message, into: &writer)
        output = writer.takeBytes()
    }

    private static func write(_ message: Message, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("v", message.envelope.v)
        writer.field("type", message.body.type)
        writer.field("id", message.envelope.id)
        writer.field("t", message.envelope.t)
        writer.field("src", message.envelope.src)
        writer.field("seq", message.envelope.seq)
        writer.field("tseq", message.envelope.tseq)
        writeBody(message.body, into: &writer)
        writer.endObject()
    }

    private static func writeBody(_ body: Body, into writer: inout JSONWriter) {
        switch body {
        case .location(let location): write(location, into: &writer)
        case .regionAdd(let command):
            writer.field("owner", command.owner)
            writer.key("region")
            write(command.region, into: &writer)
        case .regionRemove(let command):
            writer.field("owner", command.owner)
            writer.field("regionId", command.regionId)
        case .regionListRequest(let command):
            writer.field("owner", command.owner)
        case .regionRequestState(let command):
            writer.field("owner", command.owner)
            writer.field("regionId", command.regionId)
            writer.field("device", command.device)
        case .regionAdded(let reply):
            writer.field("owner", reply.owner)
            writer.key("region")
            write(reply.region, into: &writer)
            writer.field("re", reply.re)
            writer.field("effectiveRadius", reply.effectiveRadius)
        case .regionRemoved(let reply):
            writer.field("owner", reply.owner)
            writer.field("regionId", reply.regionId)
            writer.field("re", reply.re)
        case .regionFailed(let reply):
            writer.field("owner", reply.owner)
            writer.field("regionId", reply.regionId)
            writer.field("code", reply.code)
            writer.field("message", reply.message)
            writer.field("re", reply.re)
        case .regionList(let reply):
            writer.field("owner", reply.owner)
            writer.key("regions")
            writer.beginArray()
            for region in reply.regions { write(region, into: &writer) }
            writer.endArray()
            writer.field("re", reply.re)
        case .regionEvent(let event): write(event, into: &writer)
        case .authRequest(let request):
            writer.field("client", request.client)
            writer.field("level", request.level)
            writer.field("purpose", request.purpose)
        case .authSet(let command):
            writer.field("client", command.client)
            writer.field("status", command.status)
            writer.field("accuracy", command.accuracy)
        case .authStatus(let status):
            writer.field("client", status.client)
            writer.field("status", status.status)
            writer.field("accuracy", status.accuracy)
            if let grant = status.temporaryFull {
                writer.key("temporaryFull")
                writer.beginObject()
                writer.field("purpose", grant.purpose)
                writer.field("expires", grant.expires)
                writer.endObject()
            }
        case .motion(let motion):
            writer.field("device", motion.device)
            writer.field("activity", motion.activity)
            writer.field("confidence", motion.confidence)
        case .control(let control):
            writer.field("device", control.device)
            writer.field("desiredAccuracy", control.desiredAccuracy)
            writer.field("distanceFilter", control.distanceFilter)
            writer.field("paused", control.paused)
            writer.field("powerMode", control.powerMode)
            writer.field("reason", control.reason)
        case .visit(let visit):
            writer.field("device", visit.device)
            writer.field("lat", visit.lat)
            writer.field("lon", visit.lon)
            writer.field("hacc", visit.hacc)
            writer.field("arrival", visit.arrival)
            writer.field("departure", visit.departure)
        case .notification(let notification):
            writer.field("ref", notification.ref)
            writer.field("title", notification.title)
            writer.field("body", notification.body)
            writer.field("sink", notification.sink)
            writer.field("status", notification.status)
        case .health(let health): write(health, into: &writer)
        case .error(let report):
            writer.field("code", report.code)
            writer.field("message", report.message)
            writer.field("topic", report.topic)
            writer.field("ref", report.ref)
        case .other(_, let fields):
            guard let members = fields.objectValue else { return }
            for name in members.keys.sorted() where !envelopeKeys.contains(name) {
                writer.key(name)
                writer.value(members[name]!)
            }
        }
    }

    /// Names the envelope owns; an unknown type's fields cannot override them.
    static let envelopeKeys: Set<String> = ["v", "type", "id", "t", "src", "seq", "tseq"]

    private static func write(_ location: Location, into writer: inout JSONWriter) {
        writer.field("device", location.device)
        writer.field("source", location.source)
        writer.field("lat", location.lat)
        writer.field("lon", location.lon)
        writer.field("hacc", location.hacc)
        writer.field("alt", location.alt)
        writer.field("vacc", location.vacc)
        writer.field("speed", location.speed)
        writer.field("speedAcc", location.speedAcc)
        writer.field("course", location.course)
        writer.field("courseAcc", location.courseAcc)
        writer.field("mode", location.mode)
        writer.field("sats", location.sats)
        writer.field("hdop", location.hdop)
        writer.field("tier", location.tier)
        writer.field("age", location.age)
        writer.field("timeSource", location.timeSource)
    }

    private static func write(_ region: Region, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", region.id)
        writer.key("shape")
        write(region.shape, into: &writer)
        writer.field("notifyOnEntry", region.notifyOnEntry)
        writer.field("notifyOnExit", region.notifyOnExit)
        writer.field("dwell", region.dwell)
        if let devices = region.devices {
            writer.key("devices")
            writer.beginArray()
            for device in devices { writer.value(device) }
            writer.endArray()
        }
        writer.field("expires", region.expires)
        if let hours = region.activeHours {
            writer.key("activeHours")
            writer.beginObject()
            writer.field("timeZone", hours.timeZone)
            writer.key("windows")
            writer.beginArray()
            for window in hours.windows {
                writer.beginObject()
                writer.key("days")
                writer.beginArray()
                for day in window.days { writer.value(day) }
                writer.endArray()
                writer.field("start", window.start)
                writer.field("end", window.end)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endObject()
    }

    private static func write(_ shape: RegionShape, into writer: inout JSONWriter) {
        writer.beginObject()
        switch shape {
        case .circle(let center, let radius):
            writer.field("type", "Circle")
            writer.key("center")
            write(center, into: &writer)
            writer.field("radius", radius)
        case .polygon(let rings):
            writer.field("type", "Polygon")
            writer.key("coordinates")
            write(rings: rings, into: &writer)
        case .multiPolygon(let polygons):
            writer.field("type", "MultiPolygon")
            writer.key("coordinates")
            writer.beginArray()
            for rings in polygons { write(rings: rings, into: &writer) }
            writer.endArray()
        case .corridor(let line, let width):
            writer.field("type", "LineString")
            writer.key("coordinates")
            writer.beginArray()
            for point in line { write(point, into: &writer) }
            writer.endArray()
            writer.field("width", width)
        }
        writer.endObject()
    }

    private static func write(rings: [[GeoPoint]], into writer: inout JSONWriter) {
        writer.beginArray()
        for ring in rings {
            writer.beginArray()
            for point in ring { write(point, into: &writer) }
            writer.endArray()
        }
        writer.endArray()
    }

    private static func write(_ point: GeoPoint, into writer: inout JSONWriter) {
        writer.beginArray()
        writer.value(point.lon)
        writer.value(point.lat)
        writer.endArray()
    }

    private static func write(_ event: RegionEvent, into writer: inout JSONWriter) {
        writer.field("owner", event.owner)
        writer.field("regionId", event.regionId)
        writer.field("device", event.device)
        writer.field("event", event.event)
        writer.field("state", event.state)
        writer.field("cause", event.cause)
        writer.key("location")
        writer.beginObject()
        writer.field("lat", event.location.lat)
        writer.field("lon", event.location.lon)
        writer.field("hacc", event.location.hacc)
        writer.field("t", event.location.t)
        writer.endObject()
        writer.field("crossingTime", event.crossingTime)
        writer.field("re", event.re)
        writer.field("progress", event.progress)
        writer.field("offRoute", event.offRoute)
    }

    private static func write(_ health: Health, into writer: inout JSONWriter) {
        writer.field("service", health.service)
        writer.field("state", health.state)
        writer.field("uptime", health.uptime)
        if !health.counters.isEmpty {
            writer.key("counters")
            writer.beginObject()
            for name in health.counters.keys.sorted() {
                writer.key(name)
                writer.value(health.counters[name]!)
            }
            writer.endObject()
        }
        if let detail = health.detail {
            writer.key("detail")
            writer.beginObject()
            for name in detail.keys.sorted() {
                writer.key(name)
                writer.value(detail[name]!)
            }
            writer.endObject()
        }
    }
}

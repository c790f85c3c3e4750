/// The one validation path: `MessageCodec.decode` runs it on every decoded message and
/// senders run it with `validate()` before publishing.
extension Message {
    /// Checks the envelope and every field's range, identifier and word, as decode does.
    public func validate() throws(ProtocolError) {
        try envelope.validate()
        guard envelope.type == body.type else {
            throw Checker(type: "envelope").failure(.invalidValue, "type", "\(envelope.type) does not match the body type \(body.type)")
        }
        try body.validate(Checker(type: body.type))
    }
}

extension Envelope {
    func validate() throws(ProtocolError) {
        let check = Checker(type: type.isEmpty ? "envelope" : type)
        guard v == LocusProtocolVersion.current else {
            throw check.failure(.unsupportedVersion, "v", "version \(v) is not supported (this reader speaks v\(LocusProtocolVersion.current))")
        }
        try check.nonEmpty(type, "type")
        try check.nonEmpty(id, "id")
        try check.nonNegative(t, "t")
        try check.nonEmpty(src, "src")
        if let seq { try check.nonNegative(seq, "seq") }
        if let tseq { try check.nonNegative(tseq, "tseq") }
    }
}

extension Body {
    func validate(_ check: Checker) throws(ProtocolError) {
        switch self {
        case .location(let body): try body.validate(check)
        case .regionAdd(let body):
            try check.identifier(body.owner, "owner")
            try body.region.validate(check, path: "region.")
        case .regionRemove(let body):
            try check.identifier(body.owner, "owner")
            try check.nonEmpty(body.regionId, "regionId")
        case .regionListRequest(let body):
            try check.identifier(body.owner, "owner")
        case .regionRequestState(let body):
            try check.identifier(body.owner, "owner")
            if let regionId = body.regionId { try check.nonEmpty(regionId, "regionId") }
            if let device = body.device { try check.identifier(device, "device") }
        case .regionAdded(let body):
            try check.identifier(body.owner, "owner")
            try body.region.validate(check, path: "region.")
            try validateReference(body.re, check)
            if let radius = body.effectiveRadius { try check.positive(radius, "effectiveRadius") }
        case .regionRemoved(let body):
            try check.identifier(body.owner, "owner")
            try check.nonEmpty(body.regionId, "regionId")
            try validateReference(body.re, check)
        case .regionFailed(let body):
            try check.identifier(body.owner, "owner")
            try check.nonEmpty(body.regionId, "regionId")
            try validateReference(body.re, check)
        case .regionList(let body):
            try check.identifier(body.owner, "owner")
            for (index, region) in body.regions.enumerated() {
                try region.validate(check, path: "regions[\(index)].")
            }
            try validateReference(body.re, check)
        case .regionEvent(let body): try body.validate(check)
        case .authRequest(let body):
            try check.identifier(body.client, "client")
            try check.word(body.level, "level", in: AuthRequest.levels)
        case .authSet(let body):
            try check.identifier(body.client, "client")
        case .authStatus(let body):
            try check.identifier(body.client, "client")
            if let grant = body.temporaryFull { try check.nonNegative(grant.expires, "temporaryFull.expires") }
        case .motion(let body):
            try check.identifier(body.device, "device")
        case .control(let body):
            try check.identifier(body.device, "device")
            if let accuracy = body.desiredAccuracy { try check.positive(accuracy, "desiredAccuracy") }
            if let filter = body.distanceFilter { try check.nonNegative(filter, "distanceFilter") }
        case .visit(let body): try body.validate(check)
        case .notification(let body):
            try check.nonEmpty(body.ref, "ref")
            try check.identifier(body.sink, "sink")
        case .health(let body):
            try check.identifier(body.service, "service")
            if let uptime = body.uptime { try check.nonNegative(uptime, "uptime") }
            for (name, count) in body.counters { try check.nonNegative(count, "counters.\(name)") }
        case .error(let body):
            try check.nonEmpty(body.code, "code")
        case .other:
            break
        }
    }

    private func validateReference(_ re: String?, _ check: Checker) throws(ProtocolError) {
        if let re { try check.nonEmpty(re, "re") }
    }
}

extension Location {
    func validate(_ check: Checker) throws(ProtocolError) {
        try check.identifier(device, "device")
        try check.nonEmpty(source, "source")
        try check.latitude(lat, "lat")
        try check.longitude(lon, "lon")
        try check.positive(hacc, "hacc")
        if let alt { try check.finite(alt, "alt") }
        if let vacc { try check.positive(vacc, "vacc") }
        if let speed { try check.nonNegative(speed, "speed") }
        if let speedAcc { try check.positive(speedAcc, "speedAcc") }
        if let course { try check.range(course, "course", 0, 360, upperOpen: true) }
        if let courseAcc { try check.positive(courseAcc, "courseAcc") }
        if let mode { try check.word(mode, "mode", in: Location.modes) }
        if let sats { try check.nonNegative(sats, "sats") }
        if let hdop { try check.nonNegative(hdop, "hdop") }
        if let tier { try check.word(tier, "tier", in: Location.tiers) }
        if let age { try check.nonNegative(age, "age") }
        if let timeSource { try check.word(timeSource, "timeSource", in: Location.timeSources) }
    }
}

extension Region {
    func validate(_ check: Checker, path: String) throws(ProtocolError) {
        try check.nonEmpty(id, path + "id")
        try shape.validate(check, path: path + "shape.")
        if let dwell { try check.nonNegative(dwell, path + "dwell") }
        if let expires { try check.finite(expires, path + "expires") }
        if let activeHours {
            try check.nonEmpty(activeHours.timeZone, path + "activeHours.timeZone")
            for (index, window) in activeHours.windows.enumerated() {
                let at = path + "activeHours.windows[\(index)]."
                for (number, day) in window.days.enumerated() where !ActiveWindow.dayNames.contains(day) {
                    throw check.failure(.invalidValue, at + "days[\(number)]", "\(check.quoted(day)) is not a day (mon, tue, wed, thu, fri, sat, sun)")
                }
                for (name, time) in [("start", window.start), ("end", window.end)] where ActiveWindow.minutes(time) == nil {
                    throw check.failure(.invalidValue, at + name, "\(check.quoted(time)) is not a time HH:MM from 00:00 to 24:00")
                }
            }
        }
        if let devices {
            for (index, device) in devices.enumerated() { try check.identifier(device, path + "devices[\(index)]") }
        }
    }
}

extension RegionShape {
    func validate(_ check: Checker, path: String) throws(ProtocolError) {
        switch self {
        case .circle(let center, let radius):
            try center.validate(check, path: path + "center")
            try check.positive(radius, path + "radius")
        case .polygon(let rings):
            try RegionShape.validate(polygon: rings, check, path: path + "coordinates")
        case .multiPolygon(let polygons):
            guard !polygons.isEmpty else { throw check.failure(.invalidValue, path + "coordinates", "a MultiPolygon needs at least one polygon") }
            for (index, rings) in polygons.enumerated() {
                try RegionShape.validate(polygon: rings, check, path: path + "coordinates[\(index)]")
            }
        case .corridor(let line, let width):
            guard line.count >= 2 else { throw check.failure(.invalidValue, path + "coordinates", "a LineString needs at least 2 positions") }
            for (index, point) in line.enumerated() { try point.validate(check, path: path + "coordinates[\(index)]") }
            try check.positive(width, path + "width")
        }
    }

    /// GeoJSON (RFC 7946 §3.1.6): a polygon has rings of ≥ 4 positions whose first and last are equal.
    private static func validate(polygon rings: [[GeoPoint]], _ check: Checker, path: String) throws(ProtocolError) {
        guard !rings.isEmpty else { throw check.failure(.invalidValue, path, "a polygon needs at least one ring") }
        for (ringIndex, ring) in rings.enumerated() {
            let ringPath = "\(path)[\(ringIndex)]"
            guard ring.count >= 4 else {
                throw check.failure(.invalidValue, ringPath, "a ring needs at least 4 positions, has \(ring.count)")
            }
            for (index, point) in ring.enumerated() { try point.validate(check, path: "\(ringPath)[\(index)]") }
            guard ring.first == ring.last else {
                throw check.failure(.invalidValue, ringPath, "a ring must be closed (its last position equal to its first)")
            }
        }
    }
}

extension GeoPoint {
    func validate(_ check: Checker, path: String) throws(ProtocolError) {
        try check.longitude(lon, path + "[0]")
        try check.latitude(lat, path + "[1]")
    }
}

extension RegionEvent {
    func validate(_ check: Checker) throws(ProtocolError) {
        try check.identifier(owner, "owner")
        try check.nonEmpty(regionId, "regionId")
        try check.identifier(device, "device")
        try check.latitude(location.lat, "location.lat")
        try check.longitude(location.lon, "location.lon")
        try check.positive(location.hacc, "location.hacc")
        try check.nonNegative(location.t, "location.t")
        if let crossingTime { try check.nonNegative(crossingTime, "crossingTime") }
        if let re { try check.nonEmpty(re, "re") }
        if let progress { try check.nonNegative(progress, "progress") }
        if let offRoute { try check.nonNegative(offRoute, "offRoute") }
    }
}

extension Visit {
    func validate(_ check: Checker) throws(ProtocolError) {
        try check.identifier(device, "device")
        try check.latitude(lat, "lat")
        try check.longitude(lon, "lon")
        try check.positive(hacc, "hacc")
        try check.nonNegative(arrival, "arrival")
        if let departure {
            try check.nonNegative(departure, "departure")
            guard departure >= arrival else {
                throw check.failure(.outOfRange, "departure", "\(Checker.show(departure)) is before the arrival \(Checker.show(arrival))")
            }
        }
    }
}

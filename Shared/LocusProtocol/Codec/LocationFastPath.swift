/// The hot path for the most frequent message: one pass over the bytes straight into a
/// `Location`, no intermediate tree. It handles only well-formed location bodies; on
/// anything else (another type, a wrong JSON type, null, bad syntax) it returns nil and
/// the general path decodes the body again and produces the precise error.
enum LocationFastPath {
    /// The envelope and the fix, not yet validated; nil when the general path must decode.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> (envelope: Envelope, location: Location)? {
        var scanner = JSONScanner(bytes)
        var version: Int?
        var type: String?
        var id: String?
        var time: Double?
        var src: String?
        var seq: Int?
        var tseq: Int?
        var device: String?
        var source: String?
        var lat: Double?
        var lon: Double?
        var hacc: Double?
        var location = Location(device: "", source: "", lat: 0, lon: 0, hacc: 0)
        do {
            guard try !scanner.beginObject() else { return nil }
            repeat {
                guard let range = try scanner.readRawKey() else { return nil }
                switch LocationKey(range, in: scanner) {
                case .v: version = exactInteger(try scanner.readNumber())
                case .type:
                    // Compared as bytes: the type decides the path, a String for it is not needed.
                    guard let word = try scanner.readRawString(), scanner.bytes(in: word, equal: "location") else { return nil }
                    type = MessageType.location
                case .id: id = try scanner.readString()
                case .t: time = try scanner.readNumber()
                case .src: src = try scanner.readString()
                case .seq:
                    guard let integer = exactInteger(try scanner.readNumber()) else { return nil }
                    seq = integer
                case .tseq:
                    guard let integer = exactInteger(try scanner.readNumber()) else { return nil }
                    tseq = integer
                case .device: device = try scanner.readString()
                case .source: source = try scanner.readString()
                case .lat: lat = try scanner.readNumber()
                case .lon: lon = try scanner.readNumber()
                case .hacc: hacc = try scanner.readNumber()
                case .alt: location.alt = try scanner.readNumber()
                case .vacc: location.vacc = try scanner.readNumber()
                case .speed: location.speed = try scanner.readNumber()
                case .speedAcc: location.speedAcc = try scanner.readNumber()
                case .course: location.course = try scanner.readNumber()
                case .courseAcc: location.courseAcc = try scanner.readNumber()
                case .mode: location.mode = try scanner.readString()
                case .sats:
                    guard let integer = exactInteger(try scanner.readNumber()) else { return nil }
                    location.sats = integer
                case .hdop: location.hdop = try scanner.readNumber()
                case .tier: location.tier = try scanner.readString()
                case .age: location.age = try scanner.readNumber()
                case .timeSource: location.timeSource = try scanner.readString()
                case .unknown: try scanner.skipValue()
                }
            } while try scanner.nextMember()
            try scanner.expectEnd()
        } catch {
            return nil
        }
        guard version == LocusProtocolVersion.current, let type, let id, let time, let src,
            let device, let source, let lat, let lon, let hacc
        else { return nil }
        location.device = device
        location.source = source
        location.lat = lat
        location.lon = lon
        location.hacc = hacc
        return (Envelope(type: type, id: id, t: time, src: src, seq: seq, tseq: tseq), location)
    }
}

/// The member names the fast path knows, recognised from their bytes by length first.
private enum LocationKey {
    case v, type, id, t, src, seq, tseq, device, source, lat, lon, hacc, alt, vacc, speed, speedAcc
    case course, courseAcc, mode, sats, hdop, tier, age, timeSource, unknown

    @inline(__always)
    init(_ range: Range<Int>, in scanner: JSONScanner) {
        func its(_ literal: StaticString) -> Bool { scanner.bytes(in: range, equal: literal) }
        switch range.count {
        case 1:
            let byte = scanner.bytes[range.lowerBound]
            self = byte == UInt8(ascii: "v") ? .v : byte == UInt8(ascii: "t") ? .t : .unknown
        case 2: self = its("id") ? .id : .unknown
        case 3:
            if its("lat") { self = .lat } else if its("lon") { self = .lon } else if its("src") { self = .src }
            else if its("seq") { self = .seq } else if its("alt") { self = .alt } else if its("age") { self = .age }
            else { self = .unknown }
        case 4:
            if its("type") { self = .type } else if its("tseq") { self = .tseq } else if its("hacc") { self = .hacc } else if its("vacc") { self = .vacc }
            else if its("mode") { self = .mode } else if its("sats") { self = .sats } else if its("hdop") { self = .hdop }
            else if its("tier") { self = .tier } else { self = .unknown }
        case 5: self = its("speed") ? .speed : .unknown
        case 6:
            if its("device") { self = .device } else if its("source") { self = .source }
            else if its("course") { self = .course } else { self = .unknown }
        case 8: self = its("speedAcc") ? .speedAcc : .unknown
        case 9: self = its("courseAcc") ? .courseAcc : .unknown
        case 10: self = its("timeSource") ? .timeSource : .unknown
        default: self = .unknown
        }
    }
}

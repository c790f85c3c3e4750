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

/// The member names the fast path knows. Length, first and last byte single out the one
/// candidate a name can be (they differ for every known name); its bytes are then compared once.
private enum LocationKey {
    case v, type, id, t, src, seq, tseq, device, source, lat, lon, hacc, alt, vacc, speed, speedAcc
    case course, courseAcc, mode, sats, hdop, tier, age, timeSource, unknown

    @inline(__always)
    init(_ range: Range<Int>, in scanner: JSONScanner) {
        guard !range.isEmpty else {
            self = .unknown
            return
        }
        let first = scanner.bytes[range.lowerBound], last = scanner.bytes[range.upperBound - 1]
        func ascii(_ scalar: Unicode.Scalar) -> UInt8 { UInt8(ascii: scalar) }
        let candidate: LocationKey
        switch (range.count, first, last) {
        case (1, ascii("v"), _): candidate = .v
        case (1, ascii("t"), _): candidate = .t
        case (2, ascii("i"), ascii("d")): candidate = .id
        case (3, ascii("l"), ascii("t")): candidate = .lat
        case (3, ascii("l"), ascii("n")): candidate = .lon
        case (3, ascii("s"), ascii("c")): candidate = .src
        case (3, ascii("s"), ascii("q")): candidate = .seq
        case (3, ascii("a"), ascii("t")): candidate = .alt
        case (3, ascii("a"), ascii("e")): candidate = .age
        case (4, ascii("t"), ascii("e")): candidate = .type
        case (4, ascii("h"), ascii("c")): candidate = .hacc
        case (4, ascii("v"), ascii("c")): candidate = .vacc
        case (4, ascii("m"), ascii("e")): candidate = .mode
        case (4, ascii("s"), ascii("s")): candidate = .sats
        case (4, ascii("h"), ascii("p")): candidate = .hdop
        case (4, ascii("t"), ascii("r")): candidate = .tier
        case (4, ascii("t"), ascii("q")): candidate = .tseq
        case (5, ascii("s"), ascii("d")): candidate = .speed
        case (6, ascii("d"), ascii("e")): candidate = .device
        case (6, ascii("s"), ascii("e")): candidate = .source
        case (6, ascii("c"), ascii("e")): candidate = .course
        case (8, ascii("s"), ascii("c")): candidate = .speedAcc
        case (9, ascii("c"), ascii("c")): candidate = .courseAcc
        case (10, ascii("t"), ascii("e")): candidate = .timeSource
        default: candidate = .unknown
        }
        self = candidate == .unknown || scanner.bytes(in: range, equal: candidate.name) ? candidate : .unknown
    }

    /// The member name as it appears in a body.
    var name: StaticString {
        switch self {
        case .v: return "v"
        case .type: return "type"
        case .id: return "id"
        case .t: return "t"
        case .src: return "src"
        case .seq: return "seq"
        case .tseq: return "tseq"
        case .device: return "device"
        case .source: return "source"
        case .lat: return "lat"
        case .lon: return "lon"
        case .hacc: return "hacc"
        case .alt: return "alt"
        case .vacc: return "vacc"
        case .speed: return "speed"
        case .speedAcc: return "speedAcc"
        case .course: return "course"
        case .courseAcc: return "courseAcc"
        case .mode: return "mode"
        case .sats: return "sats"
        case .hdop: return "hdop"
        case .tier: return "tier"
        case .age: return "age"
        case .timeSource: return "timeSource"
        case .unknown: return ""
        }
    }
}

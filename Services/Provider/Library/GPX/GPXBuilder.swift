/// Assembles a `GPXDocument` from the tokens of one GPX file, in document order. It
/// knows GPX, not XML: `XMLTokenizer` has already checked that tags nest and match.
/// Errors carry no position; `GPXParser` adds the line and column of the token.
struct GPXBuilder {
    /// Text kept per element; GPX values are short, and a megabyte of text inside `<ele>`
    /// is not worth keeping to find out it is not a number.
    static let maximumTextBytes = 4096

    private(set) var document = GPXDocument()
    private var path: [GPXElement] = []
    private var text: [UInt8] = []
    private var point: GPXPoint?
    private var currentRoute: [GPXPoint] = []
    private var currentTrack: [GPXPoint] = []
    private var extensionsDepth = 0
    private var scratch: [UInt8] = []

    mutating func start(_ name: XMLName, attributes: [XMLAttribute]) throws(GPXError) {
        let element = GPXElement(localName: name.local)
        defer {
            path.append(element)
            text.removeAll(keepingCapacity: true)
        }
        if path.isEmpty {
            guard element == .gpx else { throw GPXError("root element is <\(name.localString)>, not <gpx>") }
            document.version = attributes.first { $0.name.isQualified("version") }?.value
            return
        }
        if extensionsDepth > 0 || element == .extensions {
            extensionsDepth += 1
            return
        }
        switch element {
        case .wpt, .rtept, .trkpt:
            guard let lat = number(attributes.first { $0.name.isQualified("lat") }),
                  let lon = number(attributes.first { $0.name.isQualified("lon") }) else {
                throw GPXError("<\(name.localString)> without numeric lat and lon")
            }
            guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else {
                throw GPXError("<\(name.localString)> lat \(lat) lon \(lon) out of range")
            }
            point = GPXPoint(lat: lat, lon: lon)
        case .rte: currentRoute = []
        case .trk: currentTrack = []
        default: break
        }
    }

    /// Text matters only directly inside an element that holds a value; the whitespace
    /// between elements, names and descriptions are not kept.
    mutating func characters(_ chunk: XMLText) {
        guard extensionsDepth == 0, path.last?.holdsValue == true, text.count < Self.maximumTextBytes else { return }
        chunk.appendDecoded(to: &text)
        if text.count > Self.maximumTextBytes { text.removeLast(text.count - Self.maximumTextBytes) }
    }

    mutating func end() throws(GPXError) {
        let element = path.removeLast()
        if extensionsDepth > 0 {
            extensionsDepth -= 1
            return
        }
        let parent = path.last
        switch element {
        case .wpt:
            if let point { document.waypoints.append(point) }
            point = nil
        case .rtept:
            if let point { currentRoute.append(point) }
            point = nil
        case .trkpt:
            if let point { currentTrack.append(point) }
            point = nil
        case .rte: document.routes.append(currentRoute)
        case .trk: document.tracks.append(currentTrack)
        case .time where parent == .gpx || parent == .metadata:
            document.time = ISO8601Time.unixSeconds(String(decoding: text, as: UTF8.self))
        default:
            guard point != nil, parent?.isPoint == true else { return }
            try readField(element)
        }
    }

    /// A child of a point; an unreadable value is dropped (unknown), except a bad time,
    /// which is an error because it would silently reorder a replay.
    private mutating func readField(_ element: GPXElement) throws(GPXError) {
        let value = Self.trimmed(text)
        if value.isEmpty { return }
        func number() -> Double? { Double(value).flatMap { $0.isFinite ? $0 : nil } }
        switch element {
        case .ele: point?.elevation = number()
        case .time:
            guard let time = ISO8601Time.unixSeconds(value) else { throw GPXError("unreadable time '\(value.prefix(40))'") }
            point?.time = time
        case .speed: point?.speed = number().flatMap { $0 >= 0 ? $0 : nil }
        case .course: point?.course = number().flatMap(FixMapping.normalizedCourse)
        case .hdop: point?.hdop = number().flatMap { $0 > 0 ? $0 : nil }
        case .vdop: point?.vdop = number().flatMap { $0 > 0 ? $0 : nil }
        case .sat: point?.sats = Int(value).flatMap { $0 >= 0 ? $0 : nil }
        default: break
        }
    }

    /// The text without XML whitespace around it.
    private static func trimmed(_ bytes: [UInt8]) -> String {
        var start = 0
        var end = bytes.count
        while start < end, XMLNameCharacters.isWhitespace(bytes[start]) { start += 1 }
        while end > start, XMLNameCharacters.isWhitespace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// An attribute's value as a number in Swift's `Double` syntax, surrounding whitespace
    /// allowed. Decoded into a reused buffer: coordinates fit a small string, so reading
    /// them allocates nothing.
    private mutating func number(_ attribute: XMLAttribute?) -> Double? {
        guard let attribute else { return nil }
        scratch.removeAll(keepingCapacity: true)
        attribute.appendDecodedValue(to: &scratch)
        return Double(Self.trimmed(scratch))
    }
}

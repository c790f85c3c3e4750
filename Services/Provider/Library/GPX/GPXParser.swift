public import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads GPX 1.0 and 1.1 with Foundation's `XMLParser` (libxml2 underneath, external
/// entities off). Tolerant where files in the wild differ: a byte-order mark, any or no
/// namespace and prefixes, missing times and elevations, unknown elements and
/// `<extensions>` are skipped. Input must be UTF-8 (the GPX norm). Strict where a replay would go wrong: broken XML, a root
/// that is not `gpx`, or a point without a valid `lat`/`lon` is an error, never a crash.
public enum GPXParser {
    /// Files larger than this are refused rather than read into memory.
    public static let maximumBytes = 256 << 20

    public static func parse(contentsOf path: String) throws(GPXError) -> GPXDocument {
        guard let data = FileManager.default.contents(atPath: path) else { throw GPXError("cannot read \(path)") }
        return try parse(data)
    }

    public static func parse(_ data: Data) throws(GPXError) -> GPXDocument {
        guard data.count <= maximumBytes else { throw GPXError("file larger than \(maximumBytes) bytes") }
        guard !data.isEmpty else { throw GPXError("empty input") }
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if bytes.contains(0) { throw GPXError("not a text file (contains NUL bytes)") }
        // Foundation's XMLParser traps on element names that are not UTF-8 (libxml2 passes
        // them through), so anything that is not valid UTF-8 is refused before parsing.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw GPXError("not UTF-8 text (GPX files are UTF-8)")
        }
        // libxml2 reports a processing instruction without data (`<?name?>`) with a NULL
        // data pointer, which Foundation's XMLParser passes to strlen: refused before parsing.
        if let target = firstProcessingInstructionWithoutData(bytes) {
            throw GPXError("processing instruction <?\(target)?> has no data (not GPX)")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let builder = GPXBuilder()
        parser.delegate = builder
        let finished = parser.parse()
        if let failure = builder.failure { throw failure }
        guard finished else {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "malformed XML"
            throw GPXError("not well-formed XML (\(reason))", line: parser.lineNumber)
        }
        guard builder.sawRoot else { throw GPXError("no <gpx> root element") }
        // XMLParser accepts input that stops inside an element; a cut-off file is an error here.
        if let open = builder.openElement { throw GPXError("input ends inside <\(open)> (truncated file?)", line: parser.lineNumber) }
        return builder.document
    }
}

extension GPXParser {
    /// The target of the first `<?target?>` in the input, or nil when every processing
    /// instruction carries data. Conservative: a match inside a comment also counts.
    static func firstProcessingInstructionWithoutData(_ bytes: Data) -> String? {
        let end = bytes.endIndex
        var index = bytes.startIndex
        while let open = bytes[index..<end].firstIndex(of: UInt8(ascii: "<")) {
            index = open + 1
            guard index < end, bytes[index] == UInt8(ascii: "?") else { continue }
            var cursor = index + 1
            while cursor < end, !isTargetEnd(bytes[cursor]) { cursor += 1 }
            if cursor > index + 1, cursor + 1 < end, bytes[cursor] == UInt8(ascii: "?"), bytes[cursor + 1] == UInt8(ascii: ">") {
                return String(decoding: bytes[(index + 1)..<cursor], as: UTF8.self)
            }
        }
        return nil
    }

    private static func isTargetEnd(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "?") || byte == UInt8(ascii: ">")
    }
}

/// The `XMLParser` delegate that assembles a `GPXDocument`; one per parse.
final class GPXBuilder: NSObject, XMLParserDelegate {
    var document = GPXDocument()
    var failure: GPXError?
    var sawRoot = false

    private var path: [String] = []
    /// The innermost element still open at the end of input, nil when all were closed.
    var openElement: String? { path.last }
    private var text = ""
    private var point: GPXPoint?
    private var currentRoute: [GPXPoint] = []
    private var currentTrack: [GPXPoint] = []
    private var extensionsDepth = 0

    private static func localName(_ qualified: String) -> String {
        guard let colon = qualified.lastIndex(of: ":") else { return qualified }
        return String(qualified[qualified.index(after: colon)...])
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        let name = Self.localName(elementName)
        defer {
            path.append(name)
            text = ""
        }
        if path.isEmpty {
            guard name == "gpx" else { return fail(parser, "root element is <\(name)>, not <gpx>") }
            sawRoot = true
            document.version = attributes["version"]
            return
        }
        if extensionsDepth > 0 || name == "extensions" {
            extensionsDepth += 1
            return
        }
        switch name {
        case "wpt", "rtept", "trkpt":
            guard let latText = attributes["lat"], let lonText = attributes["lon"],
                  let lat = Double(latText.trimmingCharacters(in: .whitespaces)),
                  let lon = Double(lonText.trimmingCharacters(in: .whitespaces)) else {
                return fail(parser, "<\(name)> without numeric lat and lon")
            }
            guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else {
                return fail(parser, "<\(name)> lat \(lat) lon \(lon) out of range")
            }
            point = GPXPoint(lat: lat, lon: lon)
        case "rte": currentRoute = []
        case "trk": currentTrack = []
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if text.utf8.count < 4096 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let name = Self.localName(elementName)
        path.removeLast()
        if extensionsDepth > 0 {
            extensionsDepth -= 1
            return
        }
        let parent = path.last
        switch name {
        case "wpt":
            if let point { document.waypoints.append(point) }
            point = nil
        case "rtept":
            if let point { currentRoute.append(point) }
            point = nil
        case "trkpt":
            if let point { currentTrack.append(point) }
            point = nil
        case "rte": document.routes.append(currentRoute)
        case "trk": document.tracks.append(currentTrack)
        case "time" where parent == "gpx" || parent == "metadata":
            document.time = ISO8601Time.unixSeconds(text)
        default:
            guard point != nil, parent == "wpt" || parent == "rtept" || parent == "trkpt" else { return }
            readField(name, parser)
        }
    }

    /// A child of a point; an unreadable value is dropped (unknown), except a bad time,
    /// which is an error because it would silently reorder a replay.
    private func readField(_ name: String, _ parser: XMLParser) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if value.isEmpty { return }
        func number() -> Double? { Double(value).flatMap { $0.isFinite ? $0 : nil } }
        switch name {
        case "ele": point?.elevation = number()
        case "time":
            guard let time = ISO8601Time.unixSeconds(value) else { return fail(parser, "unreadable time '\(value.prefix(40))'") }
            point?.time = time
        case "speed": point?.speed = number().flatMap { $0 >= 0 ? $0 : nil }
        case "course": point?.course = number().flatMap(FixMapping.normalizedCourse)
        case "hdop": point?.hdop = number().flatMap { $0 > 0 ? $0 : nil }
        case "vdop": point?.vdop = number().flatMap { $0 > 0 ? $0 : nil }
        case "sat": point?.sats = Int(value).flatMap { $0 >= 0 ? $0 : nil }
        default: break
        }
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = GPXError(message, line: parser.lineNumber) }
        parser.abortParsing()
    }
}

/// Cuts a stream of scan-tool outputs (a file, or a shell loop piped to stdin) into one
/// record per scan. A line `# scan` starts a record, optionally with its Unix time
/// (`# scan 1700000000.5`); other lines starting with `#` are comments. Without markers,
/// the reader decides where a record ends: at the end of input, or when the writer pauses
/// (`flush`). A marker glued to the end of a line (a tool killed mid-line, then the next
/// run's marker) still starts a new record. Lines over `maximumLineBytes` and records over
/// `ScanParser.maximumBytes` are not buffered: the record is marked `oversize` and refused
/// as a whole.
public struct ScanRecordSplitter: Sendable {
    public struct Record: Sendable, Equatable {
        public var text: String
        /// The time given by the `# scan` marker, if any.
        public var time: Double?
        /// The record outgrew the limits and was not kept.
        public var oversize: Bool
    }

    public var maximumLineBytes = 65_536
    private var line: [UInt8] = []
    private var lineOverflow = false
    private var body: [UInt8] = []
    private var time: Double?
    private var oversize = false
    private var hasContent = false

    public init() {}

    /// Takes the next bytes; returns the records they completed (those a marker closed).
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Record] where Bytes.Element == UInt8 {
        var out: [Record] = []
        for byte in bytes {
            if byte == 0x0A {
                if let record = endLine() { out.append(record) }
            } else if line.count < maximumLineBytes {
                line.append(byte)
            } else {
                lineOverflow = true
            }
        }
        return out
    }

    /// Ends the current record (end of input, or the writer paused): returns it when it
    /// holds anything but blank lines.
    public mutating func flush() -> Record? {
        var closed: Record?
        if !line.isEmpty || lineOverflow { closed = endLine() }
        return closed ?? close(nextTime: nil)
    }

    private mutating func endLine() -> Record? {
        defer {
            line.removeAll(keepingCapacity: true)
            lineOverflow = false
        }
        if line.last == 0x0D { line.removeLast() }
        if !lineOverflow, line.first != UInt8(ascii: "#"), let glued = Self.gluedMarker(in: line) {
            let marker = Array(line[glued...])
            line.removeSubrange(glued...)
            _ = endLine()
            line = marker
        }
        if line.first == UInt8(ascii: "#") {
            let text = String(decoding: line, as: UTF8.self)
            guard text == "# scan" || text.hasPrefix("# scan ") else { return nil }
            let stamp = ScanText.trimmed(Substring(text.dropFirst(6)))
            return close(nextTime: Double(stamp).flatMap { $0.isFinite && $0 > 0 ? $0 : nil })
        }
        if lineOverflow || body.count + line.count + 1 > ScanParser.maximumBytes {
            oversize = true
            body.removeAll()
        }
        if !oversize {
            body.append(contentsOf: line)
            body.append(0x0A)
        }
        if line.contains(where: { $0 != 0x20 && $0 != 0x09 }) || lineOverflow { hasContent = true }
        return nil
    }

    /// Where a `# scan` marker starts inside a line, if one does.
    static func gluedMarker(in line: [UInt8]) -> Int? {
        let marker: [UInt8] = Array("# scan".utf8)
        guard line.count > marker.count else { return nil }
        for start in 1...(line.count - marker.count) where line[start] == marker[0] && line[start..<start + marker.count].elementsEqual(marker) {
            let after = start + marker.count
            if after == line.count || line[after] == UInt8(ascii: " ") { return start }
        }
        return nil
    }

    /// Closes the current record and starts the next with `nextTime`.
    private mutating func close(nextTime: Double?) -> Record? {
        defer {
            body.removeAll(keepingCapacity: true)
            oversize = false
            hasContent = false
            time = nextTime
        }
        guard hasContent else { return nil }
        return Record(text: oversize ? "" : String(decoding: body, as: UTF8.self), time: time, oversize: oversize)
    }
}

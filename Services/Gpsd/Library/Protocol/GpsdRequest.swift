/// One command a client sent (gpsd_json(5), "And here are the commands").
public enum GpsdRequest: Sendable, Equatable {
    case version
    case devices
    case poll
    /// `?WATCH;` (nil: report the policy) or `?WATCH={…}`.
    case watch(FlatJSONObject?)
    /// `?DEVICE;` or `?DEVICE={…}`.
    case device(FlatJSONObject?)
    /// `?WATCH=`/`?DEVICE=` whose object could not be read; `command` is `WATCH` or `DEVICE`.
    case invalidArgument(command: String, message: String)
    /// Anything else that starts with `?`; the text is what gpsd quotes back.
    case unrecognized(String)
}

/// Cuts the bytes a client sends into commands, as gpsd reads them: a request starts with
/// `?`, commands follow each other with optional `;` and white space, and a command needs
/// no line end (libgps sends `?WATCH={"enable":true,"json":true};` with none). Text that
/// does not start with `?` is ignored up to the end of its line, as gpsd ignores it.
///
/// Input is bounded: a client that keeps more than `maximumBytes` unparsed bytes (an
/// endless line) is told so and dropped by the hub.
public struct RequestScanner: Sendable {
    public let maximumBytes: Int
    private var buffer: [UInt8] = []

    public init(maximumBytes: Int = 4096) {
        self.maximumBytes = maximumBytes
    }

    /// Bytes waiting for the rest of their command.
    public var pendingBytes: Int { buffer.count }

    /// Appends input; false when the unparsed input passed the bound (the bytes are discarded).
    public mutating func append(_ bytes: some Sequence<UInt8>) -> Bool {
        buffer.append(contentsOf: bytes)
        return buffer.count <= maximumBytes
    }

    /// The complete commands received so far, in order; partial input is kept for later.
    public mutating func takeRequests() -> [GpsdRequest] {
        var requests: [GpsdRequest] = []
        var index = 0
        scanning: while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: ";") {
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "?") else {
                guard let newline = lineEnd(from: index) else { break scanning }  // wait for the end of the ignored line
                index = newline + 1
                continue
            }
            switch command(at: index) {
            case .waiting: break scanning
            case .complete(let request, let end):
                requests.append(request)
                index = end
            }
        }
        buffer.removeFirst(index)
        return requests
    }

    private enum Step { case waiting, complete(GpsdRequest, end: Int) }

    private func command(at start: Int) -> Step {
        var index = start + 1
        while index < buffer.count, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(buffer[index]) { index += 1 }
        guard index < buffer.count else { return .waiting }
        let name = String(decoding: buffer[(start + 1)..<index], as: UTF8.self)
        let terminator = buffer[index]
        if terminator == UInt8(ascii: ";") {
            switch name {
            case "VERSION": return .complete(.version, end: index + 1)
            case "DEVICES": return .complete(.devices, end: index + 1)
            case "POLL": return .complete(.poll, end: index + 1)
            case "WATCH": return .complete(.watch(nil), end: index + 1)
            case "DEVICE": return .complete(.device(nil), end: index + 1)
            default: break
            }
        } else if terminator == UInt8(ascii: "="), name == "WATCH" || name == "DEVICE" {
            switch FlatJSONObject.parse(buffer, from: index + 1) {
            case .incomplete:
                return .waiting
            case .parsed(let object, let end):
                return .complete(name == "WATCH" ? .watch(object) : .device(object), end: end)
            case .invalid(let message):
                return .complete(.invalidArgument(command: name, message: message), end: lineEnd(from: index).map { $0 + 1 } ?? buffer.count)
            }
        }
        // Unknown: gpsd quotes and consumes the rest of the request.
        let end = lineEnd(from: start) ?? buffer.count
        var text = Array(buffer[start..<end])
        while let last = text.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") { text.removeLast() }
        return .complete(.unrecognized(String(decoding: text, as: UTF8.self)), end: end)
    }

    private func lineEnd(from index: Int) -> Int? {
        buffer[index...].firstIndex(of: UInt8(ascii: "\n"))
    }
}

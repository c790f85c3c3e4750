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

/// Cuts the bytes a client sends into commands, as gpsd reads them: a request (a line, or
/// what arrived after the previous request was complete) that starts with `?` holds
/// commands separated by optional white space, each ended by `;` or by its JSON argument;
/// a command needs no line end (libgps sends `?WATCH={"enable":true,"json":true};` with
/// none). A request that does not start with `?` is ignored, as gpsd ignores it; anything
/// else that is not a command is answered as an unrecognized request quoting the rest.
///
/// Input is bounded: a client that keeps more than `maximumBytes` unparsed bytes (an
/// endless line) is told so and dropped by the hub.
public struct RequestScanner: Sendable {
    public let maximumBytes: Int
    private var buffer: [UInt8] = []
    /// Whether the next byte begins a line (gpsd looks only at a request's first byte).
    private var atLineStart = true

    public init(maximumBytes: Int = 4096) {
        self.maximumBytes = maximumBytes
    }

    /// Bytes waiting for the rest of their command.
    public var pendingBytes: Int { buffer.count }

    /// Appends input; false when the unparsed input passed the bound.
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
            if byte == UInt8(ascii: "\n") {
                atLineStart = true
                index += 1
                continue
            }
            if atLineStart && byte != UInt8(ascii: "?") {
                guard let newline = lineEnd(from: index) else { break scanning }  // wait for the end of the ignored line
                index = newline
                continue
            }
            atLineStart = false
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                index += 1
                continue
            }
            switch command(at: index) {
            case .waiting: break scanning
            case .complete(let request, let end):
                requests.append(request)
                index = end
                if buffer[end - 1] == UInt8(ascii: "\n") { atLineStart = true }
            }
        }
        // Like gpsd, which reads each arrival as a request of its own: input that ended with
        // complete commands leaves the next bytes starting a new request.
        if index == buffer.count { atLineStart = true }
        buffer.removeFirst(index)
        return requests
    }

    private enum Step { case waiting, complete(GpsdRequest, end: Int) }

    private func command(at start: Int) -> Step {
        guard buffer[start] == UInt8(ascii: "?") else { return unrecognized(at: start) }
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
                // A `;` right after the object belongs to the command, as in gpsd.
                let after = end < buffer.count && buffer[end] == UInt8(ascii: ";") ? end + 1 : end
                return .complete(name == "WATCH" ? .watch(object) : .device(object), end: after)
            case .invalid(let message):
                return .complete(.invalidArgument(command: name, message: message), end: lineEnd(from: index) ?? buffer.count)
            }
        }
        return unrecognized(at: start)
    }

    /// gpsd quotes and consumes the rest of the request, with the line end it adds when
    /// there is none.
    private func unrecognized(at start: Int) -> Step {
        let end = lineEnd(from: start).map { $0 + 1 } ?? buffer.count
        var text = String(decoding: buffer[start..<end], as: UTF8.self)
        if text.utf8.last != UInt8(ascii: "\n") { text += "\n" }
        return .complete(.unrecognized(text), end: end)
    }

    private func lineEnd(from index: Int) -> Int? {
        buffer[index...].firstIndex(of: UInt8(ascii: "\n"))
    }
}

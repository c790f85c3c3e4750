/// One Server-Sent Event for the page: a kind the script dispatches on, and a JSON body.
public struct MapEvent: Sendable, Equatable {
    /// The kinds the page understands.
    public enum Kind: String, Sendable, CaseIterable {
        case location, motion, health, region, regionEvent
        /// A late fix: history for the track, placed by its time; the device stays where it is.
        case late
    }

    public var kind: Kind
    /// One JSON object; a bus body as received (or as rewritten for a reduced viewer).
    public var json: [UInt8]

    public init(kind: Kind, json: [UInt8]) {
        self.kind = kind
        self.json = json
    }

    /// The event on the wire (WHATWG HTML, "Server-sent events"): `event:` and one `data:` line.
    /// JSON never needs a raw line break, so any CR or LF (pretty-printed input) becomes a space
    /// and cannot end the field early or inject a field of its own.
    public var serialized: [UInt8] {
        var bytes = Array("event: \(kind.rawValue)\ndata: ".utf8)
        bytes.reserveCapacity(bytes.count + json.count + 2)
        for byte in json { bytes.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte) }
        bytes.append(0x0A)
        bytes.append(0x0A)
        return bytes
    }

    /// An SSE comment: keeps the connection visibly alive without waking the page.
    public static let keepAlive: [UInt8] = Array(": keep-alive\n\n".utf8)

    /// Sent first on every stream: how long the browser waits before reconnecting.
    public static let retryMilliseconds: [UInt8] = Array("retry: 2000\n\n".utf8)
}

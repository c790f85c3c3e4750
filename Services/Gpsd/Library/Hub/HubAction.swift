/// What the server must do after the hub handled something: the hub decides, the server
/// (which owns the sockets) carries it out.
public enum HubAction: Sendable, Equatable {
    /// Queue `text` for `client`. `bounded` output (reports fanned out to watchers) counts
    /// against the client's queue limit, so a reader that falls behind is dropped; replies
    /// to the client's own requests are always queued.
    case send(client: Int, text: String, bounded: Bool)
    /// Close the connection after what is queued (a client that broke the protocol's bounds).
    case close(client: Int, reason: String)
    /// Report on `error.gpsd` (already limited to one per code per second).
    case problem(code: String, message: String)
}

/// The two kinds of connection the server accepts.
public enum ClientKind: Sendable, Equatable {
    /// gpsd's JSON protocol on TCP: VERSION on connect, commands, watch policies.
    case gpsd
    /// A plain NMEA stream (GeoClue's `nmea-socket`): sentences from the first device, no commands.
    case nmeaStream
}

/// Counts the hub keeps for `health.gpsd`.
public struct HubCounters: Sendable, Equatable {
    public var clients = 0
    public var requests = 0
    public var badRequests = 0
    public var oversizedRequests = 0
    public var tpvSent = 0
    public var skySent = 0
    public var nmeaSent = 0
    public var fixesServed = 0
    public var fixesRefused = 0

    public init() {}

    public var values: [String: Int] {
        ["clients": clients, "requests": requests, "badRequests": badRequests, "oversizedRequests": oversizedRequests,
         "tpvSent": tpvSent, "skySent": skySent, "nmeaSent": nmeaSent, "fixesServed": fixesServed,
         "fixesRefused": fixesRefused]
    }
}

/// What an `HTTPServer` has done, for health counters and tests.
public struct HTTPServerStatistics: ConnectionStatistics, Equatable {
    public var connectionsAccepted = 0
    /// Requests handed to the handler.
    public var requests = 0
    /// Requests refused before the handler (malformed, too large, no length).
    public var badRequests = 0
    /// Clients that did not send a whole request in time (408).
    public var requestTimeouts = 0
    /// Connections answered 503 or closed because the server was full.
    public var refusedBusy = 0
    /// Responses written completely.
    public var responsesSent = 0

    public init() {}

    /// The figures as health counters, each name prefixed (`http.requests`, …).
    public func counters(prefix: String) -> [String: Int] {
        [prefix + "connections": connectionsAccepted, prefix + "requests": requests, prefix + "badRequests": badRequests,
         prefix + "requestTimeouts": requestTimeouts, prefix + "refusedBusy": refusedBusy, prefix + "responses": responsesSent]
    }
}

public import LocusNet

/// Counters of what the server did, read by tests and printed at exit, so refusals
/// (busy, too large, too slow) are visible rather than silent.
public struct MapServerStatistics: ConnectionStatistics, Equatable {
    public var connectionsAccepted = 0
    /// Answered 503 because `maximumConnections` were open.
    public var refusedBusy = 0
    /// Answered 400, 405, 414, 421 or 431.
    public var badRequests = 0
    /// Answered 404.
    public var notFound = 0
    /// Closed with 408 because the request head did not arrive in time.
    public var requestTimeouts = 0
    public var responsesSent = 0
    public var streamsOpened = 0
    public var openStreams = 0
    /// Stream clients dropped because their queue overflowed or stopped moving.
    public var slowClientsDropped = 0
    public var busMessages = 0
    public var busRejected = 0
    public var eventsSent = 0

    public init() {}
}

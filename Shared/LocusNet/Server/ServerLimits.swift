/// The bounds that keep one misbehaving client from costing the others (or the bus
/// consumer) anything: request size, time to send a request, connections, queued bytes.
/// Used by the map server and by `HTTPServer` (the phone door, the metrics exporter).
public struct ServerLimits: Sendable, Equatable {
    /// Largest request head accepted (431 beyond it).
    public var maximumHeadBytes: Int = 8192
    /// Largest request body accepted (413 beyond it); 0: bodies are not read at all and a
    /// request is complete at the end of its head (the map, which answers only GET).
    public var maximumBodyBytes: Int = 0
    /// Time a client has to send its whole request (408 after it).
    public var requestTimeoutSeconds: Double = 5
    /// Time a client has to take a whole non-streaming response before it is dropped.
    public var responseTimeoutSeconds: Double = 10
    /// Open connections at once; more are answered 503 and closed.
    public var maximumConnections: Int = 64
    /// Event-stream bytes waiting for one client; a client that falls further behind is dropped.
    public var maximumQueuedBytes: Int = 1 << 20
    /// Seconds between SSE comment lines, so proxies and browsers see a live stream.
    public var keepAliveSeconds: Double = 15

    public init() {}

    /// A copy with some fields changed, for configuration and tests.
    public func with(_ change: (inout ServerLimits) -> Void) -> ServerLimits {
        var copy = self
        change(&copy)
        return copy
    }
}

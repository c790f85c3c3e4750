import Glibc

/// The client connections of one server thread, and the rules every Locus HTTP server keeps
/// for them: excess clients answered 503 (or closed past twice the limit), malformed or
/// oversized requests refused, a request head that does not arrive in time answered 408,
/// a response or lingering close that stalls closed. The request/response server and the
/// map's event-stream server both keep their clients here, so those rules are written once;
/// what a complete request gets is the owner's decision.
///
/// Not thread-safe: owned by the thread that polls it. Outcomes go to `record`, which the
/// owner turns into its own counters.
public final class HTTPConnections {
    /// What happened to a connection, for the owner's counters.
    public enum Outcome: Sendable {
        case accepted
        /// Beyond `maximumConnections`: answered 503 once its request is read, or closed.
        case refusedBusy
        /// Refused before the owner saw it: malformed, too large, no length.
        case badRequest
        /// The request did not arrive in time (408).
        case requestTimeout
        /// A response was written completely.
        case responseSent
    }

    public let limits: ServerLimits
    /// The open connections, in the order they were accepted.
    public private(set) var all: [HTTPConnection] = []
    private let record: (Outcome) -> Void

    public init(limits: ServerLimits, record: @escaping (Outcome) -> Void) {
        self.limits = limits
        self.record = record
    }

    deinit { closeAll() }

    /// Accepts every waiting client; `configure` sees each new socket first (e.g. `TCP_NODELAY`).
    public func accept(from listener: Listener, now: Double, configure: (Int32) -> Void = { _ in }) {
        while let fd = listener.accept() {
            record(.accepted)
            configure(fd)
            let connection = HTTPConnection(fd: fd, now: now, limits: limits)
            if all.count >= limits.maximumConnections {
                record(.refusedBusy)
                // Answered 503 once its request is read (a lingering close, so the client reads the
                // answer rather than a reset); past twice the limit even that is too much.
                guard all.count < 2 * limits.maximumConnections else {
                    connection.close()
                    continue
                }
                connection.refuseAsBusy = true
            }
            all.append(connection)
        }
    }

    /// Reads what `connection` sent. Returns a whole request for the owner to answer; a
    /// refused or busy one is answered here. After the request, what else arrives is drained
    /// (a bounded amount per wake) so an EOF is noticed.
    public func read(_ connection: HTTPConnection, now: Double) -> HTTPRequest? {
        guard case .reading = connection.phase else {
            for _ in 0..<16 {
                guard let bytes = connection.readAvailable() else { return nil }
                if bytes.isEmpty { connection.close(); return nil }
            }
            return nil
        }
        guard let bytes = connection.readAvailable() else { return nil }
        if bytes.isEmpty { connection.close(); return nil }
        switch connection.reader.feed(bytes) {
        case .incomplete:
            return nil
        case .refused(let status, let reason):
            record(.badRequest)
            respond(connection, .text(status, reason), includeBody: true, now: now)
            return nil
        case .complete(let request):
            if connection.refuseAsBusy {
                respond(connection, .text(503, "too many connections"), includeBody: true, now: now)
                return nil
            }
            return request
        }
    }

    /// Queues `response` and sends what the socket takes now.
    public func respond(_ connection: HTTPConnection, _ response: HTTPResponse, includeBody: Bool, now: Double) {
        if connection.respond(response, includeBody: includeBody, now: now, timeoutSeconds: limits.responseTimeoutSeconds) {
            record(.responseSent)
        }
    }

    /// Sends what is queued, now that the socket can take more.
    public func sendQueued(_ connection: HTTPConnection, now: Double) {
        if connection.sendQueued(now: now) { record(.responseSent) }
    }

    /// Applies the request, response and lingering-close deadlines. Streams are the owner's.
    public func expire(now: Double) {
        for connection in all where !connection.closed {
            switch connection.phase {
            case .reading(let deadline) where now >= deadline:
                record(.requestTimeout)
                respond(connection, .text(408, "request not received in time"), includeBody: true, now: now)
            case .responding(let deadline) where now >= deadline, .closing(let deadline) where now >= deadline:
                connection.close()
            default:
                break
            }
        }
    }

    /// The earliest deadline of a request, response or lingering close, if any is before `limit`.
    public func nextDeadline(notAfter limit: Double) -> Double {
        var next = limit
        for connection in all {
            switch connection.phase {
            case .reading(let deadline), .responding(let deadline), .closing(let deadline): next = min(next, deadline)
            case .streaming: break
            }
        }
        return next
    }

    /// Forgets the connections that have closed.
    public func removeClosed() { all.removeAll { $0.closed } }

    /// Closes and forgets every connection.
    public func closeAll() {
        all.forEach { $0.close() }
        all.removeAll()
    }
}

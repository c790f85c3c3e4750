import Glibc

/// One accepted HTTP connection and where it is in its short life: reading its request,
/// writing a response, streaming (the map's events), or closing gracefully. Shared by the
/// map server and `HTTPServer`; the owning thread drives it from its poll loop.
public final class HTTPConnection {
    public enum Phase: Equatable, Sendable {
        /// Waiting for the request until the deadline.
        case reading(deadline: Double)
        /// Writing one response, then closing; dropped at the deadline.
        case responding(deadline: Double)
        /// An open event stream.
        case streaming
        /// Output shut down; reading what the client still sends until EOF or the deadline,
        /// so the kernel does not reset the connection before the client has read our answer.
        case closing(deadline: Double)
    }

    public let fd: Int32
    public var phase: Phase
    public var reader: HTTPRequestReader
    public var queue: OutboundQueue
    /// Last time bytes left the queue (or it was empty): a stream that makes no progress is dropped.
    public var lastProgress: Double
    public private(set) var closed = false
    /// Accepted while the server was full: its request is read, then answered 503.
    public var refuseAsBusy = false

    public init(fd: Int32, now: Double, limits: ServerLimits) {
        self.fd = fd
        phase = .reading(deadline: now + limits.requestTimeoutSeconds)
        reader = HTTPRequestReader(maximumHeadBytes: limits.maximumHeadBytes, maximumBodyBytes: limits.maximumBodyBytes)
        queue = OutboundQueue(limitBytes: limits.maximumQueuedBytes)
        lastProgress = now
    }

    /// True while the output is shut down and the connection only waits for the client's EOF.
    public var isClosing: Bool {
        if case .closing = phase { return true }
        return false
    }

    /// Reads what is waiting: the bytes, `[]` at end of input, or nil when nothing is there.
    public func readAvailable() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { return Array(buffer[..<count]) }
            if count == 0 { return [] }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            return []  // reset: treat as closed
        }
    }

    /// Writes queued bytes without blocking. False when the connection failed.
    public func flush(now: Double) -> Bool {
        let written = queue.drain { bytes in
            while true {
                let count = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                if count >= 0 { return count }
                if errno == EINTR { continue }
                return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1
            }
        }
        guard let written else { return false }
        if written > 0 || queue.isEmpty { lastProgress = now }
        return true
    }

    /// Queues a whole response and starts sending it; the connection closes once it is out
    /// (see `sendQueued`). True when the response went out in full at once.
    public func respond(_ response: HTTPResponse, includeBody: Bool, now: Double, timeoutSeconds: Double) -> Bool {
        phase = .responding(deadline: now + timeoutSeconds)
        queue.appendUnbounded(response.serialized(includeBody: includeBody))
        return sendQueued(now: now)
    }

    /// Sends what is queued without blocking; closes the connection when sending failed, and
    /// begins closing it once a response is out in full. True when a response has just been
    /// sent in full (the caller counts it).
    public func sendQueued(now: Double) -> Bool {
        guard flush(now: now) else {
            close()
            return false
        }
        guard case .responding = phase, queue.isEmpty else { return false }
        beginClosing(now: now)
        return true
    }

    /// Stops sending and waits briefly for the client to close its side.
    public func beginClosing(now: Double) {
        shutdown(fd, Int32(SHUT_WR))
        phase = .closing(deadline: now + 1)
    }

    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

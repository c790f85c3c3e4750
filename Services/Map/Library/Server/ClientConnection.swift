import Glibc

/// One accepted HTTP connection and where it is in its short life: reading its request,
/// writing a response, streaming events, or closing gracefully.
final class ClientConnection {
    enum Phase: Equatable {
        /// Waiting for the request head until the deadline.
        case reading(deadline: Double)
        /// Writing one response, then closing; dropped at the deadline.
        case responding(deadline: Double)
        /// An open event stream.
        case streaming
        /// Output shut down; reading what the client still sends until EOF or the deadline,
        /// so the kernel does not reset the connection before the client has read our answer.
        case closing(deadline: Double)
    }

    let fd: Int32
    var phase: Phase
    var parser: HTTPRequestParser
    var queue: OutboundQueue
    /// Last time bytes left the queue (or it was empty): a stream that makes no progress is dropped.
    var lastProgress: Double
    var closed = false
    /// Accepted while the server was full: its request is read, then answered 503.
    var refuseAsBusy = false

    init(fd: Int32, now: Double, limits: ServerLimits) {
        self.fd = fd
        phase = .reading(deadline: now + limits.requestTimeoutSeconds)
        parser = HTTPRequestParser(maximumHeadBytes: limits.maximumHeadBytes)
        queue = OutboundQueue(limitBytes: limits.maximumQueuedBytes)
        lastProgress = now
    }

    /// Reads what is waiting: the bytes, `[]` at end of input, or nil when nothing is there.
    func readAvailable() -> [UInt8]? {
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
    func flush(now: Double) -> Bool {
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

    /// Stops sending and waits briefly for the client to close its side.
    func beginClosing(now: Double) {
        shutdown(fd, Int32(SHUT_WR))
        phase = .closing(deadline: now + 1)
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

import Foundation
import Glibc
import LocusService

/// A small request/response HTTP/1.1 server on one thread: one `poll` over the listening
/// socket, every connection and a wake-up pipe. Each connection carries one request and
/// one response (`Connection: close`), so a handler is a plain function from request to
/// response. Nothing blocks: a client that is slow to send is answered 408, one too large
/// 413/431, and beyond `maximumConnections` 503 — the others are never held up.
///
/// The handler runs on the server's thread; it must be quick (it answers from memory or
/// hands work to another thread). Create the server (the socket is already listening),
/// call `run` on one thread and `stop` from any.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = (HTTPRequest) -> HTTPResponse

    public let listener: Listener
    public let limits: ServerLimits
    private let handler: Handler
    private let control = ServerControl(HTTPServerStatistics())
    // Owned by the thread in run().
    private let connections: HTTPConnections

    public init(listener: Listener, limits: ServerLimits, handler: @escaping Handler) {
        self.listener = listener
        self.limits = limits
        self.handler = handler
        connections = HTTPConnections(limits: limits, record: control.record)
    }

    deinit {
        connections.closeAll()
        listener.close()
    }

    /// The port bound (useful with port 0).
    public var port: UInt16 { listener.port }

    /// A copy of the counters (any thread).
    public var statistics: HTTPServerStatistics { control.statistics }

    /// Ends `run` soon (any thread).
    public func stop() { control.stop() }

    /// Serves until `stop()`, or until `keepRunning` (asked at least every 200 ms) says no.
    public func run(while keepRunning: () -> Bool = { true }) {
        var fds: [pollfd] = []
        while keepRunning() && !control.isStopping {
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: control.wakeupFD, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0))
            let polled = connections.all
            for connection in polled {
                let wantsWrite = !connection.queue.isEmpty && !connection.isClosing
                fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            let start = MonotonicClock.seconds()
            let timeout = max(0, Int(((connections.nextDeadline(notAfter: start + 0.2) - start) * 1000).rounded(.up)))
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), Int32(timeout)) }
            if ready < 0 && errno != EINTR { break }
            let now = MonotonicClock.seconds()
            if fds[0].revents != 0 { control.clearWakeup() }
            if fds[1].revents != 0 { connections.accept(from: listener, now: now) }
            for (index, connection) in polled.enumerated() where !connection.closed {
                let revents = fds[2 + index].revents
                if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0, let request = connections.read(connection, now: now) {
                    control.count { $0.requests += 1 }
                    connections.respond(connection, handler(request), includeBody: request.head.method != "HEAD", now: now)
                }
                if !connection.closed, revents & Int16(POLLOUT) != 0 { connections.sendQueued(connection, now: now) }
            }
            connections.expire(now: now)
            connections.removeClosed()
        }
        connections.closeAll()
    }
}

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
    private let wakeup = Wakeup()
    private let lock = NSLock()
    private var stopRequested = false
    private var stats = HTTPServerStatistics()
    // Owned by the thread in run().
    private var connections: [HTTPConnection] = []

    public init(listener: Listener, limits: ServerLimits, handler: @escaping Handler) {
        self.listener = listener
        self.limits = limits
        self.handler = handler
    }

    deinit {
        connections.forEach { $0.close() }
        listener.close()
    }

    /// The port bound (useful with port 0).
    public var port: UInt16 { listener.port }

    /// A copy of the counters (any thread).
    public var statistics: HTTPServerStatistics {
        lock.lock()
        defer { lock.unlock() }
        return stats
    }

    /// Ends `run` soon (any thread).
    public func stop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
        wakeup.signal()
    }

    /// Serves until `stop()`, or until `keepRunning` (asked at least every 200 ms) says no.
    public func run(while keepRunning: () -> Bool = { true }) {
        var fds: [pollfd] = []
        while keepRunning() && !isStopping {
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0))
            let polled = connections
            for connection in polled {
                let wantsWrite = !connection.queue.isEmpty && !connection.isClosing
                fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            let timeout = pollTimeoutMilliseconds(now: Self.now())
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), Int32(timeout)) }
            if ready < 0 && errno != EINTR { break }
            let now = Self.now()
            if fds[0].revents != 0 { wakeup.clear() }
            if fds[1].revents != 0 { accept(now: now) }
            for (index, connection) in polled.enumerated() where !connection.closed {
                let revents = fds[2 + index].revents
                if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { readable(connection, now: now) }
                if !connection.closed, revents & Int16(POLLOUT) != 0 { writable(connection, now: now) }
            }
            expire(now: now)
            connections.removeAll { $0.closed }
        }
        connections.forEach { $0.close() }
        connections.removeAll()
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    private func count(_ change: (inout HTTPServerStatistics) -> Void) {
        lock.lock()
        change(&stats)
        lock.unlock()
    }

    private func pollTimeoutMilliseconds(now: Double) -> Int {
        var next = now + 0.2
        for connection in connections {
            switch connection.phase {
            case .reading(let deadline), .responding(let deadline), .closing(let deadline): next = min(next, deadline)
            case .streaming: break
            }
        }
        return max(0, Int(((next - now) * 1000).rounded(.up)))
    }

    private func accept(now: Double) {
        while let fd = listener.accept() {
            count { $0.connectionsAccepted += 1 }
            let connection = HTTPConnection(fd: fd, now: now, limits: limits)
            if connections.count >= limits.maximumConnections {
                count { $0.refusedBusy += 1 }
                // Answered 503 once its request is read; past twice the limit it is just closed.
                guard connections.count < 2 * limits.maximumConnections else {
                    connection.close()
                    continue
                }
                connection.refuseAsBusy = true
            }
            connections.append(connection)
        }
    }

    private func readable(_ connection: HTTPConnection, now: Double) {
        guard case .reading = connection.phase else {
            // The request is in; drain what else arrives (bounded per wake) and notice EOF.
            for _ in 0..<16 {
                guard let bytes = connection.readAvailable() else { return }
                if bytes.isEmpty { connection.close(); return }
            }
            return
        }
        guard let bytes = connection.readAvailable() else { return }
        if bytes.isEmpty { connection.close(); return }
        switch connection.reader.feed(bytes) {
        case .incomplete:
            return
        case .refused(let status, let reason):
            count { $0.badRequests += 1 }
            respond(connection, .text(status, reason), includeBody: true, now: now)
        case .complete(let request):
            if connection.refuseAsBusy {
                respond(connection, .text(503, "too many connections"), includeBody: true, now: now)
                return
            }
            count { $0.requests += 1 }
            respond(connection, handler(request), includeBody: request.head.method != "HEAD", now: now)
        }
    }

    private func respond(_ connection: HTTPConnection, _ response: HTTPResponse, includeBody: Bool, now: Double) {
        if connection.respond(response, includeBody: includeBody, now: now, timeoutSeconds: limits.responseTimeoutSeconds) {
            count { $0.responsesSent += 1 }
        }
    }

    private func writable(_ connection: HTTPConnection, now: Double) {
        if connection.sendQueued(now: now) { count { $0.responsesSent += 1 } }
    }

    private func expire(now: Double) {
        for connection in connections where !connection.closed {
            switch connection.phase {
            case .reading(let deadline) where now >= deadline:
                count { $0.requestTimeouts += 1 }
                respond(connection, .text(408, "request not received in time"), includeBody: true, now: now)
            case .responding(let deadline) where now >= deadline, .closing(let deadline) where now >= deadline:
                connection.close()
            default:
                break
            }
        }
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

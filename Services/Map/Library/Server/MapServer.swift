import CZeroMQ
import Foundation
import Glibc
public import LocusBus
public import LocusService
import LocusProtocol
import LocusNet

/// The `locus map` server: one thread owns the bus subscriber, the listening socket and
/// every client connection, all waited on by one `zmq_poll`. Nothing in the loop blocks:
/// sockets are non-blocking and each client has a bounded queue, so a slow or hostile
/// client is refused or dropped and the bus is always drained.
///
/// Create it (which binds the port, so errors surface at once), call `run()` on one
/// thread, and `stop()` from any thread.
public final class MapServer: @unchecked Sendable {
    public let configuration: MapConfiguration
    /// The port actually bound (useful with port 0).
    public let port: UInt16

    private let context: ZMQContext
    private let listener: Listener
    private let router: MapRouter
    private let control = ServerControl(MapServerStatistics())
    private let log: ServiceLog

    // Owned by the thread in run().
    private var feed: MapFeed
    private let connections: HTTPConnections
    private var clients: [HTTPConnection] { connections.all }
    private var nextKeepAlive = 0.0

    public init(configuration: MapConfiguration, context: ZMQContext, log: ServiceLog = ServiceLog(name: "locus map")) throws(MapServerError) {
        self.configuration = configuration
        self.context = context
        self.log = log
        do { listener = try Listener.tcp(configuration.listen, backlog: 128) } catch { throw MapServerError(error.message) }
        port = listener.port
        router = MapRouter(configuration: configuration)
        feed = MapFeed(accuracy: configuration.clientAccuracy)
        connections = HTTPConnections(limits: configuration.limits, record: control.record)
    }

    deinit {
        connections.closeAll()
        listener.close()
    }

    /// A copy of the counters (any thread).
    public var statistics: MapServerStatistics { control.statistics }

    /// Ends `run()` soon (any thread).
    public func stop() { control.stop() }

    private func count(_ change: (inout MapServerStatistics) -> Void) { control.count(change) }

    /// Serves until `stop()` or the context is shut down.
    public func run() throws(MapServerError) {
        let subscriber: BusSubscriber
        do {
            subscriber = try BusSubscriber(context: context, endpoint: configuration.subscribeEndpoint, prefixes: feed.subscriptions)
        } catch {
            throw MapServerError("cannot subscribe to \(configuration.subscribeEndpoint): \(error)")
        }
        defer {
            subscriber.socket.close()
            connections.closeAll()
        }
        nextKeepAlive = MonotonicClock.seconds() + configuration.limits.keepAliveSeconds
        var items: [zmq_pollitem_t] = []
        while !control.isStopping {
            items.removeAll(keepingCapacity: true)
            items.append(zmq_pollitem_t(socket: nil, fd: control.wakeupFD, events: Int16(ZMQ_POLLIN), revents: 0))
            items.append(zmq_pollitem_t(socket: nil, fd: listener.fd, events: Int16(ZMQ_POLLIN), revents: 0))
            items.append(zmq_pollitem_t(socket: subscriber.socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
            for client in clients {
                let wantsWrite = !client.queue.isEmpty && !client.isClosing
                let events = Int16(ZMQ_POLLIN) | (wantsWrite ? Int16(ZMQ_POLLOUT) : 0)
                items.append(zmq_pollitem_t(socket: nil, fd: client.fd, events: events, revents: 0))
            }
            let timeout = pollTimeoutMilliseconds(now: MonotonicClock.seconds())
            let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32($0.count), timeout) }
            if rc < 0 {
                let error = ZMQError(operation: "zmq_poll")
                if error.isInterrupted { continue }
                if error.isTerminated { return }
                throw MapServerError("\(error)")
            }
            let now = MonotonicClock.seconds()
            let polled = clients  // the connections items[3...] refer to, before new ones are accepted
            if items[0].revents != 0 { control.clearWakeup() }
            if items[2].revents != 0 {
                do { try drainBus(subscriber, now: now) } catch {
                    if error.isTerminated { return }
                    throw MapServerError("bus: \(error)")
                }
            }
            if items[1].revents != 0 { connections.accept(from: listener, now: now, configure: Self.noDelay) }
            for (index, client) in polled.enumerated() where !client.closed {
                let revents = items[3 + index].revents
                if revents & Int16(ZMQ_POLLIN | ZMQ_POLLERR) != 0, let request = connections.read(client, now: now) {
                    route(client, request.head, now: now)
                }
                if !client.closed, revents & Int16(ZMQ_POLLOUT) != 0 { connections.sendQueued(client, now: now) }
            }
            expire(now: now)
            connections.removeClosed()
            count { $0.openStreams = clients.filter { $0.phase == .streaming }.count }
        }
    }

    private func pollTimeoutMilliseconds(now: Double) -> Int {
        var next = connections.nextDeadline(notAfter: nextKeepAlive)
        for client in clients where client.phase == .streaming && !client.queue.isEmpty {
            next = min(next, client.lastProgress + configuration.limits.responseTimeoutSeconds)
        }
        return max(0, min(60_000, Int(((next - now) * 1000).rounded(.up))))
    }

    // MARK: bus

    /// Takes what the bus has (a bounded batch, so clients are served between batches) and fans it out.
    private func drainBus(_ subscriber: BusSubscriber, now: Double) throws(ZMQError) {
        for _ in 0..<2000 {
            guard let received = try subscriber.receive(dontWait: true) else { return }
            switch received {
            case .duplicate: continue
            case .rejected(let topic, let error):
                count { $0.busRejected += 1 }
                log.debug("malformed message\(topic.map { " on \($0)" } ?? ""): \(error.message)")
            case .message(let topic, let message, let raw):
                count { $0.busMessages += 1 }
                guard let event = feed.accept(topic: topic, message: message, raw: raw) else { continue }
                broadcast(event.serialized, now: now)
            }
        }
    }

    private func broadcast(_ bytes: [UInt8], now: Double) {
        var sent = 0
        for client in clients where client.phase == .streaming && !client.closed {
            // A full queue first tries the socket (a whole bus batch is fanned out before the next poll);
            // only a client whose socket cannot take it either is too slow.
            if client.queue.append(bytes) || (client.flush(now: now) && client.queue.append(bytes)) {
                sent += 1
            } else if !client.closed {
                drop(client, reason: "fell \(client.queue.queuedBytes) bytes behind")
            }
        }
        count { $0.eventsSent += sent }
    }

    private func drop(_ client: HTTPConnection, reason: String) {
        log.info("dropping a slow client: \(reason)")
        client.close()
        count { $0.slowClientsDropped += 1 }
    }

    // MARK: connections

    private static func noDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    private func route(_ client: HTTPConnection, _ request: HTTPRequestHead, now: Double) {
        switch router.decide(request) {
        case .respond(let response, let includeBody):
            if response.status == 404 {
                count { $0.notFound += 1 }
            } else if response.status >= 400 {
                count { $0.badRequests += 1 }
            }
            connections.respond(client, response, includeBody: includeBody, now: now)
        case .stream:
            client.phase = .streaming
            client.queue.appendUnbounded(HTTPResponse(status: 200, headers: MapAsset.streamHeaders).serialized(streaming: true))
            client.queue.appendUnbounded(MapEvent.retryMilliseconds)
            var replayBytes = 0
            for event in feed.replay(maximumBytes: configuration.limits.maximumQueuedBytes / 2) {
                let bytes = event.serialized
                replayBytes += bytes.count
                client.queue.appendUnbounded(bytes)
            }
            client.lastProgress = now
            count { $0.streamsOpened += 1 }
            log.debug("stream opened, replayed \(replayBytes) bytes")
            connections.sendQueued(client, now: now)
        }
    }

    /// Applies every deadline: request heads, responses, lingering closes (the connections'
    /// rules), stuck streams; and keep-alives.
    private func expire(now: Double) {
        connections.expire(now: now)
        for client in clients where !client.closed && client.phase == .streaming && !client.queue.isEmpty
            && now - client.lastProgress >= configuration.limits.responseTimeoutSeconds {
            drop(client, reason: "no progress for \(configuration.limits.responseTimeoutSeconds) s")
        }
        if now >= nextKeepAlive {
            nextKeepAlive = now + configuration.limits.keepAliveSeconds
            for client in clients where client.phase == .streaming && !client.closed {
                if !client.queue.append(MapEvent.keepAlive) { drop(client, reason: "queue full at keep-alive") }
            }
        }
    }
}

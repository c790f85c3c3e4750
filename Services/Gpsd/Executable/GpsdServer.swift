import Foundation
import Glibc
import LocusBus
import LocusService
import LocusGpsd
import LocusNet

/// The thread that owns every client socket: one `poll` over the listeners, the clients,
/// the feed from the bus thread and a stop signal. The protocol is `GpsdHub`'s; this only
/// moves bytes. Nothing here blocks: sockets are non-blocking, and each client's queue is
/// bounded, so a slow reader is dropped instead of holding anyone up.
final class GpsdServer: @unchecked Sendable {
    private let configuration: GpsdConfiguration
    private let listeners: [(listener: Listener, kind: ClientKind)]
    private let feed: UpdateFeed
    private let feedSignal: Wakeup
    private let statistics: GpsdStatistics
    private let problems: Injector
    private let log: ServiceLog
    private let stopSignal = Wakeup()
    private let finished = DispatchSemaphore(value: 0)

    // Owned by the server thread.
    private var hub: GpsdHub
    private var clients: [Int: Connection] = [:]
    private var nextID = 1
    private var counts = ServerCounts()

    final class Connection {
        let fd: Int32
        let kind: ClientKind
        var queue: OutboundQueue
        var closing = false
        init(fd: Int32, kind: ClientKind, limit: Int) {
            self.fd = fd
            self.kind = kind
            queue = OutboundQueue(limitBytes: limit)
        }
    }

    /// Bytes the kernel may hold for one client beyond its queue (it doubles the figure for bookkeeping).
    static let kernelSendBufferBytes = 64 * 1024

    struct ServerCounts {
        var accepted = 0
        var refusedBusy = 0
        var slowClientsDropped = 0
    }

    init(configuration: GpsdConfiguration, listeners: [(listener: Listener, kind: ClientKind)], feed: UpdateFeed, feedSignal: Wakeup,
         statistics: GpsdStatistics, problems: Injector, log: ServiceLog) {
        self.configuration = configuration
        self.listeners = listeners
        self.feed = feed
        self.feedSignal = feedSignal
        self.statistics = statistics
        self.problems = problems
        self.log = log
        hub = GpsdHub(configuration: configuration)
    }

    /// Starts the server thread.
    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "gpsd-server"
        thread.start()
    }

    /// Stops the server thread and waits for it: clients are closed, the NMEA socket file removed.
    func stop() {
        stopSignal.signal()
        finished.wait()
    }

    private func run() {
        var fds: [pollfd] = []
        var polledClients: [Int] = []
        while true {
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: stopSignal.readFD, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: feedSignal.readFD, events: Int16(POLLIN), revents: 0))
            for entry in listeners { fds.append(pollfd(fd: entry.listener.fd, events: Int16(POLLIN), revents: 0)) }
            polledClients = clients.keys.sorted()
            for id in polledClients {
                let client = clients[id]!
                fds.append(pollfd(fd: client.fd, events: Int16(POLLIN) | (client.queue.isEmpty ? 0 : Int16(POLLOUT)), revents: 0))
            }
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 1000) }
            if ready < 0 && errno != EINTR {
                log.error("poll failed: \(Listener.errorText())")
                break
            }
            if fds[0].revents != 0 { break }
            let now = Date().timeIntervalSince1970
            if fds[1].revents != 0 {
                feedSignal.clear()  // before draining, so an update queued meanwhile signals again
                for update in feed.drain() { perform(hub.apply(update, now: now)) }
            }
            for (offset, entry) in listeners.enumerated() where fds[2 + offset].revents != 0 {
                accept(from: entry.listener, kind: entry.kind)
            }
            let base = 2 + listeners.count
            for (offset, id) in polledClients.enumerated() {
                guard let client = clients[id] else { continue }
                let revents = fds[base + offset].revents
                if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { read(id, client, now: now) }
                if let client = clients[id], revents & Int16(POLLOUT) != 0 { flush(id, client) }
            }
            statistics.store(snapshot)
        }
        for id in clients.keys.sorted() { close(id) }
        for entry in listeners {
            Glibc.close(entry.listener.fd)
            if entry.kind == .nmeaStream { unlink(entry.listener.description) }
        }
        statistics.store(snapshot)
    }

    private var snapshot: [String: Int] {
        var values = hub.counters.values
        values["connectionsAccepted"] = counts.accepted
        values["refusedBusy"] = counts.refusedBusy
        values["slowClientsDropped"] = counts.slowClientsDropped
        return values
    }

    private func accept(from listener: Listener, kind: ClientKind) {
        while let fd = listener.accept() {
            guard clients.count < configuration.maximumClients else {
                counts.refusedBusy += 1
                log.warn("refusing a client on \(listener.description): \(configuration.maximumClients) clients already connected")
                Glibc.close(fd)
                continue
            }
            counts.accepted += 1
            if kind == .gpsd {
                var yes: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            }
            // A fixed kernel send buffer: left to autotuning it grows to megabytes for a reader that
            // does not read, and the queue bound would take minutes to notice a stalled client.
            var sendBuffer = Int32(Self.kernelSendBufferBytes)
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
            let id = nextID
            nextID += 1
            clients[id] = Connection(fd: fd, kind: kind, limit: configuration.maximumQueuedBytes)
            log.debug("client \(id) connected on \(listener.description)")
            perform(hub.connect(id, kind: kind))
        }
    }

    private func read(_ id: Int, _ client: Connection, now: Double) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {  // bounded per wake, so one chatty client cannot starve the others
            let count = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                perform(hub.receive(id, buffer[..<count], now: now))
                guard clients[id] != nil else { return }
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count < 0 && errno == EINTR { continue }
            close(id)  // end of input or a reset
            return
        }
    }

    private func perform(_ actions: [HubAction]) {
        for action in actions {
            switch action {
            case let .send(id, text, bounded):
                guard let client = clients[id], !client.closing else { continue }
                let bytes = Array(text.utf8)
                if !bounded {
                    client.queue.appendUnbounded(bytes)
                    flush(id, client)
                } else if !(client.queue.append(bytes) || (flush(id, client) && client.queue.append(bytes))) {
                    guard clients[id] != nil else { continue }
                    counts.slowClientsDropped += 1
                    log.info("dropping client \(id): fell \(client.queue.queuedBytes) bytes behind")
                    close(id)
                }
            case let .close(id, reason):
                guard let client = clients[id] else { continue }
                log.info("closing client \(id): \(reason)")
                client.closing = true
                flush(id, client)
                close(id)
            case let .problem(code, message):
                problems.send(.problem(code: code, message: message))
            }
        }
    }

    /// Writes what the socket takes now; false (and the client closed) when the connection failed.
    @discardableResult
    private func flush(_ id: Int, _ client: Connection) -> Bool {
        let written = client.queue.drain { bytes in
            while true {
                let count = send(client.fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                if count >= 0 { return count }
                if errno == EINTR { continue }
                return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1
            }
        }
        guard written != nil else {
            close(id)
            return false
        }
        return true
    }

    private func close(_ id: Int) {
        guard let client = clients.removeValue(forKey: id) else { return }
        Glibc.close(client.fd)
        hub.disconnect(id)
        log.debug("client \(id) disconnected")
    }
}

public import LocusService
import CZeroMQ

/// Waits on several sockets owned by the calling thread, so one thread can serve
/// subscriptions, injected messages and timers without blocking on any single socket.
public struct Poller {
    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// Registers a socket for readability and returns its index in `poll`'s result.
    @discardableResult
    public mutating func add(_ socket: ZMQSocket) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Registers a plain file descriptor (e.g. stdin) for readability.
    @discardableResult
    public mutating func add(fileDescriptor: Int32) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Stops (false) or resumes watching registration `index`, e.g. input the owner may not
    /// read now; a paused registration is never reported readable.
    public mutating func watch(_ index: Int, _ watching: Bool) {
        if items[index].socket == nil {
            // poll(2) skips a negative descriptor; events 0 would still report a hang-up.
            let fd = items[index].fd
            if watching == (fd < 0) { items[index].fd = watching ? -(fd + 1) : -fd - 1 }
        } else {
            items[index].events = watching ? Int16(ZMQ_POLLIN) : 0
        }
    }

    /// Blocks up to `timeoutMilliseconds` (-1: forever) and returns which registrations are readable.
    /// An error condition counts as readable, so the next read reports it. EINTR yields an empty result; ETERM is thrown so the owning loop can stop.
    public mutating func poll(timeoutMilliseconds: Int) throws(ZMQError) -> [Bool] {
        let count = Int32(items.count)
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, count, timeoutMilliseconds) }
        if rc < 0 {
            let error = ZMQError(operation: "zmq_poll")
            if error.isInterrupted { return Array(repeating: false, count: items.count) }
            throw error
        }
        // A file descriptor at end of input (a closed pipe) reports POLLHUP, which zmq_poll maps
        // to ZMQ_POLLERR without ZMQ_POLLIN; count it as readable so the owner reads the EOF.
        return items.map { ($0.revents & Int16(ZMQ_POLLIN | ZMQ_POLLERR)) != 0 }
    }
}

import CZeroMQ
import Foundation
import LocusBus
import LocusService

/// Follows the XPUB's tcp connections through a socket monitor (ACCEPTED and
/// DISCONNECTED carry the file descriptor) so the broker can make every tcp subscriber
/// reconnect when an authorization change must reach subscriptions already granted.
///
/// Why: with ZMQ_XPUB_MANUAL, ZMQ_SUBSCRIBE/UNSUBSCRIBE act only on the pipe whose
/// subscription was read last, and libzmq 4.3.4 has no stable way to select or drop one
/// peer. Shutting the connection down makes the client's SUB reconnect (100 ms by
/// default) and send its subscriptions again, which the broker then grants under the new
/// state. ipc connections (trusted local services) are never touched.
final class SubscriberConnections {
    private let monitor: ZMQSocket
    private var tcpDescriptors: Set<Int32> = []
    private(set) var kicks = 0
    private(set) var lastKick = 0.0

    init(context: ZMQContext, watching socket: ZMQSocket) throws {
        let endpoint = "inproc://locus-bus-monitor-\(getpid())-\(UUID().uuidString.prefix(8))"
        guard zmq_socket_monitor(socket.handle, endpoint, ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) == 0 else {
            throw ZMQError(operation: "zmq_socket_monitor")
        }
        monitor = try ZMQSocket(context: context, type: .pair)
        try monitor.connect(endpoint)
    }

    var socket: ZMQSocket { monitor }
    var tcpCount: Int { tcpDescriptors.count }

    /// Reads every waiting monitor event.
    func drain() throws(ZMQError) {
        while let frames = try monitor.receiveMultipart(dontWait: true) {
            guard frames.count == 2, frames[0].count >= 6 else { continue }
            let event = UInt16(frames[0][0]) | UInt16(frames[0][1]) << 8
            let value = frames[0][2..<6].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            let fd = Int32(bitPattern: value)
            if Int32(event) == ZMQ_EVENT_ACCEPTED, frames[1].starts(with: Array("tcp://".utf8)) {
                tcpDescriptors.insert(fd)
            } else if Int32(event) == ZMQ_EVENT_DISCONNECTED {
                tcpDescriptors.remove(fd)
            }
        }
    }

    /// Shuts every tcp subscriber connection down; libzmq notices, closes it and the clients reconnect.
    func kickAll() throws(ZMQError) {
        try drain()
        for fd in tcpDescriptors { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        tcpDescriptors.removeAll()
        kicks += 1
        lastKick = Date().timeIntervalSince1970
    }

    func close() {
        monitor.close()
    }
}

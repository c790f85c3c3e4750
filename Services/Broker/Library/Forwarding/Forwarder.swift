import CZeroMQ
import LocusBus
import LocusService
import LocusProtocol

/// Moves whole two-frame messages from the XSUB side to the XPUB side without copying
/// them (zmq_msg_t handed from recv to send), in batches so the poll loop stays cheap.
struct Forwarder {
    private var topic = zmq_msg_t()
    private var body = zmq_msg_t()
    private var extra = zmq_msg_t()
    /// Messages handled per wake-up before subscriptions get a turn again.
    static let batch = 4096

    init() {
        zmq_msg_init(&topic)
        zmq_msg_init(&body)
        zmq_msg_init(&extra)
    }

    mutating func close() {
        zmq_msg_close(&topic)
        zmq_msg_close(&body)
        zmq_msg_close(&extra)
    }

    mutating func drain(from frontend: ZMQSocket, to backend: ZMQSocket, broker: Broker) throws(ZMQError) {
        guard let input = frontend.handle, let output = backend.handle else { return }
        var handled = 0
        while handled < Self.batch {
            guard try receive(&topic, input, dontWait: true) else { break }
            handled += 1
            broker.received += 1
            guard zmq_msg_more(&topic) != 0 else {
                broker.reject("a message of one frame (expected topic and body)", backend: backend)
                continue
            }
            _ = try receive(&body, input, dontWait: false)
            if zmq_msg_more(&body) != 0 {
                repeat { _ = try receive(&extra, input, dontWait: false) } while zmq_msg_more(&extra) != 0
                broker.reject("a message of more than two frames", backend: backend)
                continue
            }
            let topicBytes = UnsafeRawBufferPointer(start: zmq_msg_data(&topic), count: zmq_msg_size(&topic))
            let bodyBytes = UnsafeRawBufferPointer(start: zmq_msg_data(&body), count: zmq_msg_size(&body))
            if let problem = Self.framingProblem(topic: topicBytes, body: bodyBytes) {
                broker.reject(problem, backend: backend)
                continue
            }
            // With an allow-list every message is checked against its sender; on the local bus
            // only `auth.*` (commands to the authority, statuses only it may publish) is.
            if broker.filtersClients {
                if !broker.admit(topic: topicBytes, body: bodyBytes, userID: zmq_msg_gets(&topic, "User-Id"), backend: backend) { continue }
            } else if topicBytes[0] == UInt8(ascii: "a"), !broker.admit(topic: topicBytes, body: bodyBytes, userID: nil, backend: backend) {
                continue
            }
            if Self.isReplayRequest(topic: topicBytes) {
                try broker.serveReplay(body: bodyBytes, backend: backend)
                continue
            }
            broker.didForward(topic: topicBytes, body: bodyBytes)
            try send(topic: output, backend: backend, broker: broker)
        }
    }

    private static let replayTopic = Array(BusReplayRequest.topic.utf8)

    /// `bus.replay` is addressed to the bus itself and never forwarded.
    static func isReplayRequest(topic: UnsafeRawBufferPointer) -> Bool {
        topic.count == replayTopic.count && topic.elementsEqual(replayTopic)
    }

    /// Cheap checks only (the bus forwards, it does not parse bodies): a topic of printable
    /// bytes and a body that starts like a JSON object.
    static func framingProblem(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) -> String? {
        if topic.isEmpty { return "an empty topic" }
        if topic.count > 1024 { return "a topic longer than 1024 bytes" }
        for byte in topic where byte <= 0x20 || byte == 0x7f { return "a topic with control or space characters" }
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 }), first == UInt8(ascii: "{") else {
            return "a body that is not a JSON object"
        }
        return nil
    }

    private mutating func send(topic output: UnsafeMutableRawPointer, backend: ZMQSocket, broker: Broker) throws(ZMQError) {
        if zmq_msg_send(&topic, output, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 {
            let error = ZMQError(operation: "zmq_msg_send")
            guard error.wouldBlock else { throw error }
            // A subscriber's queue is full. Deliver to the others anyway and count the loss:
            // one slow subscriber must neither stall the bus nor lose silently.
            broker.dropped += 1
            try backend.setOption(ZMQ_XPUB_NODROP, 0)
            defer { try? backend.setOption(ZMQ_XPUB_NODROP, 1) }
            guard zmq_msg_send(&topic, output, ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0 else { throw ZMQError(operation: "zmq_msg_send") }
        }
        guard zmq_msg_send(&body, output, ZMQ_DONTWAIT) >= 0 else { throw ZMQError(operation: "zmq_msg_send") }
        broker.forwarded += 1
    }

    private func receive(_ message: inout zmq_msg_t, _ socket: UnsafeMutableRawPointer, dontWait: Bool) throws(ZMQError) -> Bool {
        while true {
            if zmq_msg_recv(&message, socket, dontWait ? ZMQ_DONTWAIT : 0) >= 0 { return true }
            let error = ZMQError(operation: "zmq_msg_recv")
            if error.isInterrupted { continue }
            if error.wouldBlock { return false }
            throw error
        }
    }
}

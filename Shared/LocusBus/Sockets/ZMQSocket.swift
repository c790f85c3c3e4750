public import LocusService
import CZeroMQ
import Foundation

/// The socket kinds Locus uses.
public enum ZMQSocketType: Int32, Sendable {
    case pub = 1, sub = 2, pair = 0, xpub = 9, xsub = 10, push = 8, pull = 7, rep = 4
}

/// A ZeroMQ socket owned by exactly one thread. It is deliberately not `Sendable`:
/// libzmq sockets are not thread-safe, so each loop creates, uses and closes its own.
public final class ZMQSocket {
    public private(set) var handle: UnsafeMutableRawPointer?
    public let type: ZMQSocketType
    /// The frames `withReceivedFrames` lends out: the topic, the body and one scratch frame for
    /// any further ones. Heap storage, because libzmq keeps a small frame's bytes inside the
    /// `zmq_msg_t` itself, so its address must not move while the bytes are read.
    private let lentFrames = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 3)
    private var lending = false

    /// Milliseconds a closing socket may keep flushing; 0 lost the tail of streams, so it is bounded, not zero.
    public static let defaultLingerMilliseconds: Int32 = 1000

    public init(context: ZMQContext, type: ZMQSocketType) throws(ZMQError) {
        guard let raw = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError(operation: "zmq_socket")
        }
        handle = raw
        self.type = type
        for slot in 0..<3 { zmq_msg_init(lentFrames + slot) }
        try setOption(ZMQ_LINGER, Self.defaultLingerMilliseconds)
    }

    deinit {
        close()
        for slot in 0..<3 { zmq_msg_close(lentFrames + slot) }
        lentFrames.deallocate()
    }

    public func close() {
        if let handle { zmq_close(handle) }
        handle = nil
    }

    private var raw: UnsafeMutableRawPointer {
        guard let handle else { preconditionFailure("socket used after close") }
        return handle
    }

    // MARK: options

    public func setOption(_ option: Int32, _ value: Int32) throws(ZMQError) {
        var value = value
        if zmq_setsockopt(raw, option, &value, MemoryLayout<Int32>.size) != 0 {
            throw ZMQError(operation: "zmq_setsockopt(\(option))")
        }
    }

    public func setOption(_ option: Int32, bytes: [UInt8]) throws(ZMQError) {
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(raw, option, $0.baseAddress, $0.count) }
        if rc != 0 { throw ZMQError(operation: "zmq_setsockopt(\(option))") }
    }

    public func getInt32Option(_ option: Int32) throws(ZMQError) -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(raw, option, &value, &size) != 0 {
            throw ZMQError(operation: "zmq_getsockopt(\(option))")
        }
        return value
    }

    public func getStringOption(_ option: Int32) throws(ZMQError) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        if zmq_getsockopt(raw, option, &buffer, &size) != 0 {
            throw ZMQError(operation: "zmq_getsockopt(\(option))")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Subscribes a SUB socket to a topic prefix ("" for everything).
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8))
    }

    /// Drops one subscription made with `subscribe` (the same prefix).
    public func unsubscribe(_ prefix: String) throws(ZMQError) {
        try setOption(ZMQ_UNSUBSCRIBE, bytes: Array(prefix.utf8))
    }

    public func setHighWaterMarks(send: Int32, receive: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDHWM, send)
        try setOption(ZMQ_RCVHWM, receive)
    }

    // MARK: endpoints

    public func bind(_ endpoint: String) throws(ZMQError) {
        if zmq_bind(raw, endpoint) != 0 { throw ZMQError(operation: "bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws(ZMQError) {
        if zmq_connect(raw, endpoint) != 0 { throw ZMQError(operation: "connect \(endpoint)") }
    }

    /// The endpoint actually bound (resolves `tcp://127.0.0.1:*` to a port).
    public var lastEndpoint: String { (try? getStringOption(ZMQ_LAST_ENDPOINT)) ?? "" }

    // MARK: send

    /// Sends one frame; `more` marks a following frame. Retries on EINTR.
    /// Returns false when `dontWait` was set and the call would have blocked.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try sendFrame(more: more, dontWait: dontWait) { socket, flags in zmq_send(socket, bytes.baseAddress, bytes.count, flags) }
    }

    @discardableResult
    public func send(_ bytes: [UInt8], more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try sendFrame(more: more, dontWait: dontWait) { socket, flags in
            bytes.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, flags) }
        }
    }

    private func sendFrame(more: Bool, dontWait: Bool,
                           _ call: (UnsafeMutableRawPointer, Int32) -> Int32) throws(ZMQError) -> Bool {
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            if call(raw, flags) >= 0 { return true }
            let error = ZMQError(operation: "zmq_send")
            if error.isInterrupted { continue }
            if error.wouldBlock && dontWait { return false }
            throw error
        }
    }

    /// Sends a Locus message: the two frames of docs/protocol.md, topic then body.
    @discardableResult
    public func send(topic: String, body: [UInt8], dontWait: Bool = false) throws(ZMQError) -> Bool {
        // A native String's UTF-8 is contiguous: sent from where it lies, with no copy per message.
        var topic = topic
        let sent = topic.withUTF8 { bytes -> Result<Bool, ZMQError> in
            Result { () throws(ZMQError) in try send(UnsafeRawBufferPointer(bytes), more: true, dontWait: dontWait) }
        }
        guard try sent.get() else { return false }
        return try send(body)
    }

    // MARK: receive

    /// Receives one whole multipart message and lends its frames to `read` without copying
    /// them (the copy into arrays cost a receiver three allocations and a memcpy per message).
    /// Frames after the second are received and released, only counted. Returns nil, without
    /// calling `read`, when `dontWait` is set and nothing is waiting.
    public func withReceivedFrames<Result>(dontWait: Bool = false,
                                           _ read: (ReceivedFrames) -> Result) throws(ZMQError) -> Result? {
        precondition(!lending, "withReceivedFrames called again while its frames are lent out")
        lending = true
        var count = 0
        defer {
            for slot in 0..<min(count, 3) {
                zmq_msg_close(lentFrames + slot)
                zmq_msg_init(lentFrames + slot)
            }
            lending = false
        }
        while true {
            let frame = lentFrames + min(count, 2)
            let flags = (dontWait && count == 0) ? ZMQ_DONTWAIT : 0
            if zmq_msg_recv(frame, raw, flags) < 0 {
                let error = ZMQError(operation: "zmq_msg_recv")
                if error.isInterrupted { continue }
                if error.wouldBlock && count == 0 { return nil }
                throw error
            }
            count += 1
            if zmq_msg_more(frame) == 0 { break }
        }
        return read(ReceivedFrames(count: count, first: Self.bytes(of: lentFrames),
                                   second: count >= 2 ? Self.bytes(of: lentFrames + 1) : UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    private static func bytes(of frame: UnsafeMutablePointer<zmq_msg_t>) -> UnsafeRawBufferPointer {
        let size = zmq_msg_size(frame)
        return size == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : UnsafeRawBufferPointer(start: zmq_msg_data(frame), count: size)
    }

    /// Receives one whole multipart message. Returns nil when `dontWait` is set and nothing is waiting.
    public func receiveMultipart(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        while true {
            let flags = (dontWait && frames.isEmpty) ? ZMQ_DONTWAIT : 0
            if zmq_msg_recv(&message, raw, flags) < 0 {
                let error = ZMQError(operation: "zmq_msg_recv")
                if error.isInterrupted { continue }
                if error.wouldBlock && frames.isEmpty { return nil }
                throw error
            }
            let size = zmq_msg_size(&message)
            if size == 0 {
                frames.append([])
            } else {
                let data = zmq_msg_data(&message)!
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            }
            if zmq_msg_more(&message) == 0 { return frames }
        }
    }
}

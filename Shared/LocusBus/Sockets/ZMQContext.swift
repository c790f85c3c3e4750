public import LocusService
import CZeroMQ

/// One libzmq context per process. The context itself is thread-safe (unlike its
/// sockets), so it may be shared; `shutdown()` from any thread wakes every blocked
/// call with `ETERM`, which is how socket-owning threads learn to stop.
public final class ZMQContext: @unchecked Sendable {
    public let handle: UnsafeMutableRawPointer

    public init() {
        guard let raw = zmq_ctx_new() else { fatalError("zmq_ctx_new failed: out of memory") }
        handle = raw
        // Bounded shutdown: sockets closed during shutdown wait at most their linger.
        zmq_ctx_set(raw, ZMQ_BLOCKY, 0)
    }

    /// Makes blocking calls on every socket of this context return `ETERM`.
    public func shutdown() { zmq_ctx_shutdown(handle) }

    deinit { zmq_ctx_term(handle) }
}

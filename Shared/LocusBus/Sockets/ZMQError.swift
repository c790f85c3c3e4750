public import LocusService
public import CZeroMQ
import Foundation

/// A failed libzmq call, with the errno it left behind, so callers can tell
/// shutdown (`ETERM`) and back-pressure (`EAGAIN`) from real faults.
public struct ZMQError: Error, Sendable, CustomStringConvertible {
    public let errno: Int32
    public let operation: String

    public init(operation: String, errno: Int32 = zmq_errno()) {
        self.operation = operation
        self.errno = errno
    }

    /// The context was shut down: the owning loop should close its sockets and return.
    public var isTerminated: Bool { errno == ETERM }
    /// A non-blocking call would have blocked (high-water mark reached, nothing to read).
    public var wouldBlock: Bool { errno == EAGAIN }
    public var isInterrupted: Bool { errno == EINTR }

    public var description: String {
        "\(operation): \(String(cString: zmq_strerror(errno)))"
    }
}

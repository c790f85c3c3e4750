import Glibc

/// A self-pipe that another thread (or a signal handler's queue) writes to so the
/// owning loop's poll wakes up; its read end is what the loop polls.
public final class Wakeup: @unchecked Sendable {
    public let readFD: Int32
    private let writeFD: Int32

    public init() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { fatalError("pipe failed: errno \(errno)") }
        readFD = fds[0]
        writeFD = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Writes one byte (`value`, for a reader that wants to know why it was woken); safe in a
    /// signal handler: one `write`, no allocation.
    public func signal(_ value: UInt8 = 1) {
        var byte = value
        _ = write(writeFD, &byte, 1)  // a full pipe already means "wake up"
    }

    /// Empties the pipe (owning thread only).
    public func clear() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while buffer.withUnsafeMutableBytes({ read(readFD, $0.baseAddress, $0.count) }) > 0 {}
    }
}

import Glibc

/// One open byte source (file, stdin, serial port, TCP or UDP socket, a child's pipe),
/// read with a timeout so the reading thread can notice a stop request.
public final class ByteStream: @unchecked Sendable {
    public enum ReadResult: Equatable, Sendable {
        case data(Int)
        case timeout
        case end
        case failed(String)
    }

    public let fd: Int32
    public let name: String
    private let ownsDescriptor: Bool
    private var closed = false

    public init(fd: Int32, name: String, ownsDescriptor: Bool = true) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = ownsDescriptor
    }

    deinit { close() }

    /// Waits up to `timeoutMilliseconds` for bytes and reads what is there into `buffer`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> ReadResult {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, timeoutMilliseconds)
        if ready < 0 { return errno == EINTR ? .timeout : .failed(String(cString: strerror(errno))) }
        if ready == 0 { return .timeout }
        let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if count > 0 { return .data(count) }
        if count == 0 { return .end }
        if errno == EINTR || errno == EAGAIN { return .timeout }
        return .failed("\(name): \(String(cString: strerror(errno)))")
    }

    /// Writes all of `bytes` (a gpsd `?WATCH` command); false when the peer is gone.
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == ENOTSOCK {
                    let plain = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                    if plain < 0 { return false }
                    offset += plain
                    continue
                }
                return false
            }
            offset += written
        }
        return true
    }

    public func close() {
        guard !closed else { return }
        closed = true
        if ownsDescriptor { _ = Glibc.close(fd) }
    }
}

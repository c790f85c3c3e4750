public import Glibc

/// A non-blocking, close-on-exec listening socket: TCP on an IPv4 address (gpsd's port, the
/// map, the phone door, metrics) or a Unix stream socket (the NMEA socket GeoClue reads).
public struct Listener: Sendable {
    public let fd: Int32
    /// The TCP port bound (useful with port 0), or 0 for a Unix socket.
    public let port: UInt16
    public let description: String

    /// Listens on `address`; SO_REUSEADDR so a restarted server takes its port back at once.
    public static func tcp(_ address: ListenAddress, backlog: Int32 = 64) throws(ListenerError) -> Listener {
        guard let octets = ListenAddress.octets(address.host) else { throw ListenerError("not an IPv4 address: \(address.host)") }
        let fd = try makeSocket(domain: AF_INET)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        socketAddress.sin_addr.s_addr = (UInt32(octets[0]) << 24 | UInt32(octets[1]) << 16 | UInt32(octets[2]) << 8 | UInt32(octets[3])).bigEndian
        let bound = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try finish(fd, bound: bound, backlog: backlog, what: "\(address)")
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = UInt16(bigEndian: actual.sin_port)
        return Listener(fd: fd, port: port, description: "\(address.host):\(port)")
    }

    /// Listens on a Unix socket at `path` with permissions `mode`. A stale socket left by a
    /// previous run is replaced; any other file at the path is an error.
    public static func unix(path: String, mode: mode_t) throws(ListenerError) -> Listener {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ListenerError("--nmea-socket path must be 1 to \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes: \(path)")
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw ListenerError("\(path) exists and is not a socket") }
            unlink(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = try makeSocket(domain: AF_UNIX)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try finish(fd, bound: bound, backlog: 64, what: path)
        guard chmod(path, mode) == 0 else {
            let text = errorText()
            Glibc.close(fd)
            throw ListenerError("cannot set the mode of \(path): \(text)")
        }
        return Listener(fd: fd, port: 0, description: path)
    }

    /// The next waiting connection, non-blocking and close-on-exec; nil when none waits.
    public func accept() -> Int32? {
        while true {
            let client = Glibc.accept(fd, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return client
            }
            if errno == EINTR { continue }
            return nil  // EAGAIN, a connection that died in the backlog, or out of descriptors
        }
    }

    private static func makeSocket(domain: Int32) throws(ListenerError) -> Int32 {
        let fd = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ListenerError("socket: \(errorText())") }
        return fd
    }

    /// Closes the listening socket (the owner calls it once, when it stops serving).
    public func close() {
        Glibc.close(fd)
    }

    private static func finish(_ fd: Int32, bound: Int32, backlog: Int32, what: String) throws(ListenerError) {
        guard bound == 0, listen(fd, backlog) == 0 else {
            let text = errorText()
            Glibc.close(fd)
            throw ListenerError("cannot listen on \(what): \(text)")
        }
    }

    public static func errorText() -> String { String(cString: strerror(errno)) }
}

/// A listening socket that could not be opened, for a person.
public struct ListenerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

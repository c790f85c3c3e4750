import Glibc

/// A non-blocking IPv4 TCP listening socket, close-on-exec, with SO_REUSEADDR so a
/// restarted `locus map` can take its port back at once.
struct ListeningSocket {
    let fd: Int32
    let port: UInt16

    init(address: ListenAddress, backlog: Int32 = 128) throws(MapServerError) {
        guard let octets = ListenAddress.octets(address.host) else {
            throw MapServerError("not an IPv4 address: \(address.host)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MapServerError("socket: \(Self.errorText())") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address4 = sockaddr_in()
        address4.sin_family = sa_family_t(AF_INET)
        address4.sin_port = address.port.bigEndian
        address4.sin_addr.s_addr = (UInt32(octets[0]) << 24 | UInt32(octets[1]) << 16 | UInt32(octets[2]) << 8 | UInt32(octets[3])).bigEndian
        let bound = withUnsafePointer(to: &address4) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let text = Self.errorText()
            close(fd)
            throw MapServerError("cannot listen on \(address): \(text)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = UInt16(bigEndian: actual.sin_port)
    }

    /// The next pending connection, non-blocking and close-on-exec; nil when none is waiting.
    func accept() -> Int32? {
        while true {
            let client = Glibc.accept(fd, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return client
            }
            if errno == EINTR { continue }
            return nil  // EAGAIN, or a connection that died in the backlog (ECONNABORTED), or EMFILE
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// A failure to start or run the map server, for a person.
public struct MapServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

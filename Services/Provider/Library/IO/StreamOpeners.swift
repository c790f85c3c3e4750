public import Glibc

/// Opens the byte sources a provider reads. Each throws a `SourceError` with a message
/// fit for `error.provider`.
public enum StreamOpeners {
    /// A regular file, or stdin for `-`.
    public static func file(_ path: String) throws(SourceError) -> ByteStream {
        if path == "-" { return ByteStream(fd: 0, name: "stdin", ownsDescriptor: false) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SourceError("cannot open \(path): \(lastError())") }
        return ByteStream(fd: fd, name: path)
    }

    /// A serial port in raw mode at `baud` (8N1, no flow control), like a GPS puck expects.
    public static func serial(_ path: String, baud: Int) throws(SourceError) -> ByteStream {
        guard let speed = baudConstant(baud) else { throw SourceError("unsupported baud rate \(baud)") }
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw SourceError("cannot open \(path): \(lastError())") }
        var settings = termios()
        if tcgetattr(fd, &settings) == 0 {
            cfmakeraw(&settings)
            settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
            settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
            cfsetispeed(&settings, speed)
            cfsetospeed(&settings, speed)
            guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
                let message = lastError()
                _ = Glibc.close(fd)
                throw SourceError("cannot configure \(path): \(message)")
            }
        }
        return ByteStream(fd: fd, name: path)
    }

    /// The termios constant for a baud rate, nil for rates a GPS does not use.
    public static func baudConstant(_ baud: Int) -> speed_t? {
        switch baud {
        case 1200: speed_t(B1200)
        case 2400: speed_t(B2400)
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        case 460800: speed_t(B460800)
        case 921600: speed_t(B921600)
        default: nil
        }
    }

    /// A TCP connection to `host:port` (an NMEA multiplexer, a gpsd).
    public static func tcp(host: String, port: Int) throws(SourceError) -> ByteStream {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SourceError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var problem = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            let fd = socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                            candidate.pointee.ai_protocol)
            if fd >= 0 {
                if connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 {
                    return ByteStream(fd: fd, name: "\(host):\(port)")
                }
                problem = lastError()
                _ = Glibc.close(fd)
            }
            entry = candidate.pointee.ai_next
        }
        throw SourceError("cannot connect to \(host):\(port): \(problem)")
    }

    /// A UDP socket bound to `port` on all IPv4 interfaces; each datagram holds NMEA lines.
    public static func udp(port: Int) throws(SourceError) -> ByteStream {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SourceError("cannot create UDP socket: \(lastError())") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = INADDR_ANY
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let message = lastError()
            _ = Glibc.close(fd)
            throw SourceError("cannot bind UDP port \(port): \(message)")
        }
        return ByteStream(fd: fd, name: "udp:\(port)")
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

/// A source that could not start or lost its input, phrased for a person.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

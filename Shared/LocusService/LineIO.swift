import Glibc

/// Reads whole lines from a file descriptor without blocking the loop longer than one
/// read(2); a line longer than `maxLineBytes` is cut off and reported, not buffered forever.
public struct LineReader {
    let fd: Int32
    var maxLineBytes = 1 << 20
    private var buffer: [UInt8] = []
    /// Inside an over-long line: skip bytes until its end.
    private var discarding = false
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    public init(fd: Int32) { self.fd = fd }

    /// The complete lines available now, and whether the input has ended.
    public mutating func read() -> (lines: [Substring], ended: Bool) {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return ([], false) }
        if count <= 0 {
            let rest = buffer.isEmpty ? [] : [Substring(String(decoding: buffer, as: UTF8.self))]
            buffer.removeAll()
            return (rest, true)
        }
        var lines: [Substring] = []
        var slice = chunk[0..<count]
        if discarding {
            guard let newline = slice.firstIndex(of: 0x0a) else { return ([], false) }
            slice = slice[(newline + 1)...]
            discarding = false
        }
        buffer.append(contentsOf: slice)
        var start = 0
        while let newline = buffer[start...].firstIndex(of: 0x0a) {
            lines.append(Substring(String(decoding: buffer[start..<newline], as: UTF8.self)))
            start = newline + 1
        }
        buffer.removeFirst(start)
        if buffer.count > maxLineBytes {
            // Keep a prefix so the text-form parser reports the line as malformed.
            lines.append(Substring(String(decoding: buffer.prefix(64), as: UTF8.self)))
            buffer.removeAll()
            discarding = true
        }
        return (lines, false)
    }
}

/// Buffers text-form lines and writes them with few system calls.
public struct LineWriter {
    let fd: Int32
    private var pending: [UInt8] = []

    public init(fd: Int32) { self.fd = fd }

    public mutating func write(_ line: String) {
        pending.append(contentsOf: line.utf8)
        pending.append(0x0a)
        if pending.count >= 1 << 16 { flush() }
    }

    public mutating func flush() {
        var offset = 0
        while offset < pending.count {
            let written = pending[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                break  // stdout closed: nothing left to tell
            }
            offset += written
        }
        pending.removeAll(keepingCapacity: true)
    }
}

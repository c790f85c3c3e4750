import Glibc

/// Reads whole lines from a file descriptor without blocking the loop longer than one
/// read(2); a line longer than `maxLineBytes` is cut off and reported, not buffered forever.
///
/// Lines are handed out as bytes inside the reader's buffer (no String, no copy per line);
/// an unfinished line stays in the buffer for the next read.
public struct LineReader {
    let fd: Int32
    /// Longest line kept whole; a longer one is cut to a 64-byte prefix and the rest skipped.
    public var maxLineBytes = 1 << 20
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Bytes at the front of `buffer` that belong to lines not yet complete.
    private var filled = 0
    /// Inside an over-long line: skip bytes until its end.
    private var discarding = false

    public init(fd: Int32) { self.fd = fd }

    /// Calls `line` for each complete line available now (without its `\n`; the bytes are
    /// valid only during the call) and returns whether the input has ended.
    public mutating func read(_ line: (UnsafeRawBufferPointer) -> Void) -> Bool {
        if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        let start = filled
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + start, $0.count - start) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return false }
        if count <= 0 {
            if filled > 0 { buffer.withUnsafeBytes { line(UnsafeRawBufferPointer(rebasing: $0[..<filled])) } }
            filled = 0
            return true
        }
        filled += count
        let wasDiscarding = discarding
        let (consumed, overlong) = buffer.withUnsafeBytes { raw -> (Int, Bool) in
            let base = raw.baseAddress!
            /// The next newline at or after `start`, found by memchr.
            func newline(from start: Int) -> Int? {
                memchr(base + start, 0x0a, filled - start).map { UnsafeRawPointer($0) - base }
            }
            var next = 0
            if wasDiscarding {
                guard let end = newline(from: 0) else { return (filled, true) }
                next = end + 1
            }
            while let end = newline(from: next) {
                line(UnsafeRawBufferPointer(rebasing: raw[next..<end]))
                next = end + 1
            }
            guard filled - next > maxLineBytes else { return (next, false) }
            // Keep a prefix so the text-form parser reports the line as malformed.
            line(UnsafeRawBufferPointer(rebasing: raw[next..<(next + 64)]))
            return (filled, true)
        }
        discarding = overlong
        if consumed > 0 {
            let rest = filled - consumed
            if rest > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    raw.baseAddress!.copyMemory(from: raw.baseAddress! + consumed, byteCount: rest)
                }
            }
            filled = rest
        }
        return false
    }
}

/// Buffers text-form lines and writes them with few system calls.
public struct LineWriter {
    let fd: Int32
    private var pending: [UInt8] = []

    public init(fd: Int32) { self.fd = fd }

    public mutating func write(_ line: String) {
        pending.append(contentsOf: line.utf8)
        endLine()
    }

    /// Appends one line written by `body` straight into the buffer (no String in between).
    public mutating func write(_ body: (inout [UInt8]) -> Void) {
        body(&pending)
        endLine()
    }

    private mutating func endLine() {
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

/// Bytes waiting to be written to one client, with a hard bound: when a client reads
/// slower than the bus produces, its queue fills and the client is dropped, so the
/// thread consuming the bus never waits for anyone.
public struct OutboundQueue: Sendable {
    public let limitBytes: Int
    public private(set) var queuedBytes = 0
    private var chunks: [[UInt8]] = []
    private var head = 0
    private var offset = 0

    public init(limitBytes: Int) {
        self.limitBytes = limitBytes
    }

    public var isEmpty: Bool { queuedBytes == 0 }

    /// Appends a chunk; false (and nothing queued) when it would pass the bound.
    @discardableResult
    public mutating func append(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        guard queuedBytes + bytes.count <= limitBytes else { return false }
        chunks.append(bytes)
        queuedBytes += bytes.count
        return true
    }

    /// Appends regardless of the bound (a whole response whose size the server chose).
    public mutating func appendUnbounded(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        queuedBytes += bytes.count
    }

    /// Hands the oldest unwritten bytes to `write`, which returns how many it wrote
    /// (0 when the socket is full). Repeats until the queue is empty or `write` stops.
    /// Returns the bytes written in total, or nil if `write` failed (returned a negative count).
    public mutating func drain(_ write: (UnsafeRawBufferPointer) -> Int) -> Int? {
        var total = 0
        while head < chunks.count {
            let written = chunks[head].withUnsafeBytes { bytes in
                write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            if written < 0 { return nil }
            if written == 0 { break }
            total += written
            queuedBytes -= written
            offset += written
            if offset == chunks[head].count {
                chunks[head] = []
                head += 1
                offset = 0
            }
        }
        if head == chunks.count || head > 64 {
            chunks.removeFirst(head)
            head = 0
        }
        return total
    }
}

/// The writer's output: `storage[..<count]` is written, the rest is zeroed room, so a token
/// is written through one pointer after one room check instead of one Array append per byte.
struct JSONOutputBuffer {
    private var storage: [UInt8]
    private var count: Int

    init(capacity: Int) {
        storage = [UInt8](repeating: 0, count: max(capacity, 16))
        count = 0
    }

    /// Continues `output`, moved in.
    init(continuing output: inout [UInt8]) {
        storage = output
        output = []
        count = storage.count
    }

    /// Lets `body` write at most `limit` bytes at the end; it returns how many it wrote.
    @inline(__always)
    mutating func write(upTo limit: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < limit { grow(limit) }
        let start = count
        count += storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    private mutating func grow(_ limit: Int) {
        if limit <= Self.room.count {
            storage.append(contentsOf: Self.room)
        } else {
            storage.append(contentsOf: repeatElement(0, count: limit))
        }
    }

    /// Zeroed room added at a time (copied: faster than filling).
    private static let room = [UInt8](repeating: 0, count: 512)

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        write(upTo: 1) { out in
            out.pointee = byte
            return 1
        }
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        write(upTo: bytes.count) { out in
            out.update(from: source, count: bytes.count)
            return bytes.count
        }
    }

    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    mutating func append(contentsOf text: String.UTF8View) {
        var text = String(text)
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// A copy of what was written.
    var written: [UInt8] { Array(storage[..<count]) }

    /// What was written, moved out; the buffer is empty afterwards.
    mutating func take() -> [UInt8] {
        storage.removeSubrange(count...)
        defer {
            storage = []
            count = 0
        }
        return storage
    }
}

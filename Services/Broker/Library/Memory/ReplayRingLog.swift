import Foundation
public import LocusStore

/// The replay ring on disk (`replay-ring.log` under `locus-bus --state DIR`), so a bus
/// restarted after a crash still answers `bus.replay` for events it forwarded before:
/// a notifier that was down while the bus died would otherwise never get them.
///
/// An append-only file of records `receivedAt` (Float64, little-endian), topic length and
/// body length (UInt32 LE), topic, body. Appends are buffered per forwarding batch and
/// written with plain `write()`, without `fsync`: the kernel's page cache outlives a killed
/// process, so a SIGKILL loses nothing that was written; only a power loss or kernel crash
/// can. When the file holds `compactAfter` records more than the ring, it is rewritten from
/// the ring (temporary file, then rename), so it stays bounded. A torn last record (a
/// write cut short) is ignored on load.
public final class ReplayRingLog {
    public static let fileName = "replay-ring.log"

    public let path: String
    /// Extra records tolerated before compaction; bounds the file at ring capacity + this.
    public let compactAfter: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    /// Records in the file now (after the last compaction plus appends).
    public private(set) var records = 0
    public private(set) var compactions = 0
    /// Write failures (disk full, …); the in-memory ring carries on regardless.
    public private(set) var failures = 0
    /// The fault of the last failed write, nil once a write succeeded again. Records not
    /// written stay in `buffer` (appended to on the next flush) until they outnumber the
    /// ring, after which the file is rewritten from the ring instead (`needsRewrite`).
    public private(set) var fault: StorageFault?
    /// Set when the buffer was given up: the next successful write is a rewrite from the ring.
    public private(set) var needsRewrite = false
    /// File length after the last complete record, to cut a torn append back to.
    private var goodLength: off_t = 0
    /// A torn append could not be cut back (the cut failed too): nothing is appended after
    /// it until it is, or the records after it would be unreadable at the next start.
    private var needsCut = false

    /// Names the log under `directory` (created if missing); `rewrite` opens the file.
    public init(directory: String, compactAfter: Int = 50_000) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        self.compactAfter = max(1, compactAfter)
    }

    deinit {
        flush()
        if fd >= 0 { close(fd) }
    }

    /// Whether the file exists (a previous run of the bus left it).
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Every intact record in the file, oldest first.
    public func load() -> [ReplayRing.Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return Self.decode([UInt8](data))
    }

    /// Replaces the file with `entries` (the ring after loading or when the log grew too long)
    /// and keeps it open for appends.
    public func rewrite(_ entries: [ReplayRing.Entry]) {
        buffer.removeAll(keepingCapacity: true)
        pendingRecords = 0
        if fd >= 0 { close(fd) }
        fd = -1
        var bytes: [UInt8] = []
        for entry in entries { Self.encode(entry, into: &bytes) }
        do throws(StorageFault) {
            try StateFiles.createDirectory(StateFiles.directory(of: path))
            try StateFiles.writeAtomically(bytes, to: path)
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StorageFault(errno: errno, path: path, operation: "open") }
            goodLength = off_t(bytes.count)
            fault = nil
            needsRewrite = false
            needsCut = false
        } catch {
            failures += 1
            fault = error
            needsRewrite = true
        }
        records = entries.count
        compactions += 1
    }

    /// Queues one record; `flush()` writes the batch.
    public func append(_ entry: ReplayRing.Entry) {
        guard !needsRewrite else { return }  // the rewrite takes it from the ring
        Self.encode(entry, into: &buffer)
        records += 1
        pendingRecords += 1
    }

    /// Whether the file has grown `compactAfter` records beyond `ringCount` and should be rewritten.
    public func needsCompaction(ringCount: Int) -> Bool {
        records > ringCount + compactAfter
    }

    /// Writes what `append` queued (one `write()` per batch). On failure the records stay
    /// queued and a torn record is cut off the file, so the next flush appends them whole.
    /// A file removed with its directory is noticed here (the descriptor no longer names
    /// `path`) rather than written to in vain.
    public func flush() {
        guard !buffer.isEmpty, !needsRewrite else { return }
        do throws(StorageFault) {
            guard fd >= 0 else { throw StorageFault(errno: ENOENT, path: path, operation: "open") }
            guard StateFiles.isSameFile(fd: fd, path: path) else {
                throw StorageFault(kind: .gone, path: path, cause: "removed while open (with its directory?)")
            }
            if needsCut {
                guard ftruncate(fd, goodLength) == 0 else { throw StorageFault(errno: errno, path: path, operation: "truncate") }
                needsCut = false
            }
            try StateFiles.writeAll(buffer, to: fd, path: path)
            goodLength += off_t(buffer.count)
            buffer.removeAll(keepingCapacity: true)
            pendingRecords = 0
            fault = nil
        } catch {
            failures += 1
            fault = error
            // A write can fail part way (a short write, then the error): cut what it left.
            if fd >= 0, ftruncate(fd, goodLength) != 0 { needsCut = true }
        }
    }

    /// Whether the records not yet written outnumber `ringCount`: the ring then holds all
    /// the file should, and the buffer is dropped for a rewrite from the ring.
    public func giveUpBufferIfLarger(than ringCount: Int) {
        guard fault != nil, !needsRewrite, pendingRecords > ringCount else { return }
        buffer.removeAll()
        pendingRecords = 0
        needsRewrite = true
    }

    /// Records queued since the last successful flush.
    private var pendingRecords = 0

    // MARK: record format

    static func encode(_ entry: ReplayRing.Entry, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: entry.receivedAt.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(entry.topic.count).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(entry.body.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: entry.topic)
        bytes.append(contentsOf: entry.body)
    }

    static func decode(_ bytes: [UInt8]) -> [ReplayRing.Entry] {
        var entries: [ReplayRing.Entry] = []
        var offset = 0
        func integer<T: FixedWidthInteger>(_: T.Type, at position: Int) -> T {
            var value: T = 0
            for index in 0..<MemoryLayout<T>.size { value |= T(bytes[position + index]) << (8 * index) }
            return value
        }
        while offset + 16 <= bytes.count {
            let receivedAt = Double(bitPattern: integer(UInt64.self, at: offset))
            let topicCount = Int(integer(UInt32.self, at: offset + 8))
            let bodyCount = Int(integer(UInt32.self, at: offset + 12))
            let end = offset + 16 + topicCount + bodyCount
            guard end <= bytes.count, receivedAt.isFinite else { break }
            let topic = Array(bytes[(offset + 16)..<(offset + 16 + topicCount)])
            let body = Array(bytes[(offset + 16 + topicCount)..<end])
            entries.append(ReplayRing.Entry(receivedAt: receivedAt, topic: topic, body: body))
            offset = end
        }
        return entries
    }
}

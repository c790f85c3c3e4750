#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The plain-file side of durable state (the bus's authorization file and replay log,
/// fusion's last-known locations): whole-file writes that a crash cannot tear, and the
/// checks and repairs a state directory needs, each failure a `StorageFault` with its errno.
public enum StateFiles {
    /// Writes `bytes` to `path` through a temporary file beside it and a rename, so a crash
    /// leaves the old file or the new one. `fsync` is not called: a killed process loses
    /// nothing the kernel holds; a power loss may lose the newest write.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600) throws(StorageFault) {
        let temporary = "\(path).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw StorageFault(errno: errno, path: temporary, operation: "create") }
        do {
            try writeAll(bytes, to: fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        if close(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw StorageFault(errno: code, path: temporary, operation: "close")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw StorageFault(errno: code, path: path, operation: "rename")
        }
    }

    /// Writes every byte or throws; a short write on a full disk becomes ENOSPC.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(StorageFault) {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if result < 0 {
                if errno == EINTR { continue }
                throw StorageFault(errno: errno, path: path, operation: "write")
            }
            if result == 0 { throw StorageFault(errno: ENOSPC, path: path, operation: "write") }
            offset += result
        }
    }

    /// Creates `path` and its missing parents with mode 0700 (a state directory that was
    /// removed while the service ran comes back this way, before its state is written again).
    public static func createDirectory(_ path: String) throws(StorageFault) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw StorageFault(errno: errno, path: prefix, operation: "create directory")
            }
        }
    }

    /// Whether the open `fd` is still the file at `path`: false once the file (or its
    /// directory) was removed or replaced, when writes through `fd` would reach no one.
    public static func isSameFile(fd: Int32, path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Creates, writes, syncs and removes a one-byte file in `directory`; returns the errno
    /// that stopped it (EROFS, EACCES, ENOSPC, EIO, ENOENT …), or 0 when it could be written.
    /// How a service tells why a write failed when the writer did not keep the errno.
    public static func probeWrite(in directory: String) -> Int32 {
        let probe = "\(directory)/.locus-write-test.\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return errno }
        defer {
            close(fd)
            unlink(probe)
        }
        var byte: UInt8 = 0
        let written = write(fd, &byte, 1)
        if written != 1 { return written < 0 ? errno : ENOSPC }
        return fsync(fd) == 0 ? 0 : errno
    }

    /// The directory part of `path` ("." for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

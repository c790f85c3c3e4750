import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why durable state could not be written, in the terms an operator acts on: every service
/// that keeps state (a database, a log, a small file) turns its failures into one of these,
/// so `health.<service>` and `error.<service>` name the same few faults the same way.
public struct StorageFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// The faults `docs/reliability.md` describes, one section each.
    public enum Kind: String, Sendable {
        case full = "disk full"
        case readOnly = "read-only"
        case gone = "directory gone"
        case denied = "permission denied"
        case io = "I/O error"
        case other = "storage error"
    }

    public var kind: Kind
    /// The file or directory that could not be written.
    public var path: String
    /// What the system or SQLite said.
    public var cause: String

    public init(kind: Kind, path: String, cause: String) {
        self.kind = kind
        self.path = path
        self.cause = cause
    }

    /// A failed system call: `errno` decides the kind.
    public init(errno code: Int32, path: String, operation: String) {
        self.init(kind: Self.kind(errno: code) ?? .other, path: path,
                  cause: "\(operation): \(String(cString: strerror(code)))")
    }

    /// A failed SQLite call on the database at `path`: the system error behind it when
    /// SQLite kept one, else its result code. SQLite reports a write refused by a read-only
    /// filesystem or an unwritable directory as a bare "disk I/O error" and has usually lost
    /// the errno by the time it returns, so for an I/O error without one a test write beside
    /// the database (`StateFiles.probeWrite`) finds the cause.
    public init(_ error: SQLiteError, path: String) {
        let primary = error.code & 0xff
        var kind: Kind
        switch primary {
        case SQLITE_FULL: kind = .full
        case SQLITE_READONLY: kind = error.extendedCode == SQLiteError.movedCode ? .gone : .readOnly
        case SQLITE_CANTOPEN: kind = .gone
        case SQLITE_PERM, SQLITE_AUTH: kind = .denied
        case SQLITE_IOERR: kind = .io
        default: kind = .other
        }
        var cause = error.message
        if primary != SQLITE_READONLY, error.systemErrno != 0, let fromErrno = Self.kind(errno: error.systemErrno) {
            kind = fromErrno
        } else if kind == .io, error.systemErrno == 0 {
            let code = StateFiles.probeWrite(in: StateFiles.directory(of: path))
            if code != 0, let probed = Self.kind(errno: code) {
                kind = probed
                cause += " (a test write beside it: \(String(cString: strerror(code))))"
            }
        }
        self.init(kind: kind, path: path, cause: cause)
    }

    /// Any error a writer met: a `StorageFault` stays what it is, a `SQLiteError` is
    /// classified, anything else is `.other` with its description.
    public static func from(_ error: any Error, path: String) -> StorageFault {
        if let fault = error as? StorageFault { return fault }
        if let sqlite = error as? SQLiteError { return StorageFault(sqlite, path: path) }
        return StorageFault(kind: .other, path: path, cause: "\(error)")
    }

    public var description: String { "\(kind.rawValue): \(path): \(cause)" }

    static func kind(errno code: Int32) -> Kind? {
        switch code {
        case ENOSPC, EDQUOT, EFBIG: return .full
        case EROFS: return .readOnly
        case ENOENT, ENOTDIR, ESTALE: return .gone
        case EACCES, EPERM: return .denied
        case EIO: return .io
        default: return nil
        }
    }
}

import Foundation

/// The secret behind the reduced-accuracy offsets. It lives in a file readable only by its
/// owner (0600) so the approximate points stay the same across restarts; when the file is
/// missing a random one is created. The secret's value is never logged.
public enum ApproxSecret {
    public enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        case tooShort(String)
        case cannotCreate(String, Int32)

        public var description: String {
            switch self {
            case .unreadable(let path): return "cannot read the approx secret file \(path)"
            case .tooShort(let path): return "the approx secret file \(path) holds fewer than 16 bytes"
            case .cannotCreate(let path, let code): return "cannot create the approx secret file \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Reads the secret at `path`, creating 32 random bytes there (mode 0600) when absent.
    /// `created` tells the caller to say so in its log; `openToOthers` that the mode lets others read it.
    public static func loadOrCreate(path: String) throws -> (secret: [UInt8], created: Bool, openToOthers: Bool) {
        if FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path) else { throw Failure.unreadable(path) }
            guard data.count >= 16 else { throw Failure.tooShort(path) }
            let mode = ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            return (Array(data), false, mode & 0o077 != 0)
        }
        let secret = random(count: 32)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw Failure.cannotCreate(path, errno) }
        defer { close(fd) }
        let written = secret.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == secret.count else { throw Failure.cannotCreate(path, errno) }
        return (secret, true, false)
    }

    /// Bytes from the system's cryptographic generator.
    public static func random(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

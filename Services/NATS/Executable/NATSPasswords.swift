import CCrypt
import Foundation
import LocusBroker

/// Each NATS user's password, made once and kept: the client's credentials file
/// `<dir>/<name>.credentials` (`name:password`, 0600, what `--nats-credentials` reads) and
/// its bcrypt hash `<dir>/<name>.bcrypt`, the only form the servers' configuration holds.
struct NATSPasswords {
    let directory: String

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// The user's bcrypt hash, making the password (and hash) on first use.
    func hash(for user: String) throws -> String {
        let credentials = "\(directory)/\(user).credentials"
        let hashFile = "\(directory)/\(user).bcrypt"
        let password: String
        if let text = read(credentials), let colon = text.firstIndex(of: ":"), text[..<colon] == user {
            password = String(text[text.index(after: colon)...]).trimmingCharacters(in: .newlines)
        } else {
            password = try Self.randomPassword()
            try write("\(user):\(password)\n", to: credentials)
        }
        if let stored = read(hashFile)?.trimmingCharacters(in: .whitespacesAndNewlines), Self.verify(password, stored) {
            return stored
        }
        let made = try Self.bcrypt(password)
        try write(made + "\n", to: hashFile)
        return made
    }

    private func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    private func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            throw NATSConfigError("cannot write \(path)")
        }
    }

    /// 24 random bytes as 32 URL-safe base64 characters (no `:`, no quoting needed).
    static func randomPassword() throws -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// A bcrypt hash (`$2b$`, cost 11) through the system's libcrypt.
    static func bcrypt(_ password: String) throws -> String {
        var salt = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$2b$", 11, nil, 0, &salt, Int32(salt.count)) != nil else {
            throw NATSConfigError("libcrypt cannot make a bcrypt salt")
        }
        guard let hash = hash(password, setting: salt), hash.hasPrefix("$2b$") else {
            throw NATSConfigError("libcrypt cannot hash with bcrypt")
        }
        return hash
    }

    static func verify(_ password: String, _ hash: String) -> Bool {
        hash.hasPrefix("$2") && Self.hash(password, setting: Array(hash.utf8CString)) == hash
    }

    private static func hash(_ password: String, setting: [CChar]) -> String? {
        var data = crypt_data()
        return withUnsafeMutableBytes(of: &data) { raw -> String? in
            let size = Int32(raw.count)
            guard let result = crypt_rn(password, setting, raw.baseAddress, size) else { return nil }
            return String(cString: result)
        }
    }
}

struct NATSConfigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

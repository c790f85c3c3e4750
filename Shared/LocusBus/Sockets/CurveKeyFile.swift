public import LocusService
import Foundation

/// Key files written by `locus keys gen`: `NAME.key` holds both keys (mode 0600),
/// `NAME.pub` the public key only, each as `public-key = …` / `secret-key = …` lines
/// with `#` comments, so they are readable by a person and by a few lines of Python.
public enum CurveKeyFile {
    /// Writes the keypair to `NAME.key` (0600) and `NAME.pub` (0644) under `directory`; returns both paths.
    @discardableResult
    public static func write(_ pair: CurveKeyPair, name: String, directory: String) throws -> (secret: String, public: String) {
        let base = (directory as NSString).appendingPathComponent(name)
        let secretPath = base + ".key"
        let publicPath = base + ".pub"
        let secretText = "# Locus CURVE keypair '\(name)': keep private (mode 0600)\npublic-key = \(pair.publicKey)\nsecret-key = \(pair.secretKey)\n"
        let publicText = "# Locus CURVE public key '\(name)': give this to the bus administrator\npublic-key = \(pair.publicKey)\n"
        try writePrivate(secretText, to: secretPath)
        try Data(publicText.utf8).write(to: URL(fileURLWithPath: publicPath), options: .atomic)
        return (secretPath, publicPath)
    }

    /// Reads a keypair file. Refuses one that others may read, as ssh does: a leaked secret key is an identity lost.
    public static func readPair(path: String) throws(CurveKeyError) -> CurveKeyPair {
        let fields = try readFields(path: path)
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw CurveKeyError("\(path): secret key file is readable by others (mode \(String(mode, radix: 8))); chmod 600 it")
        }
        guard let secret = fields["secret-key"] else { throw CurveKeyError("\(path): no secret-key line") }
        guard CurveKeyPair.isZ85Key(secret) else { throw CurveKeyError("\(path): secret-key is not a 40-character Z85 key") }
        let derived = try CurveKeyPair.publicKey(forSecret: secret)
        if let stated = fields["public-key"], stated != derived {
            throw CurveKeyError("\(path): public-key does not belong to secret-key")
        }
        return CurveKeyPair(publicKey: derived, secretKey: secret)
    }

    /// Reads a public key from a `.pub` or `.key` file, or takes `text` itself when it is a bare Z85 key.
    public static func readPublicKey(path: String) throws(CurveKeyError) -> String {
        if CurveKeyPair.isZ85Key(path) { return path }
        let fields = try readFields(path: path)
        guard let key = fields["public-key"], CurveKeyPair.isZ85Key(key) else {
            throw CurveKeyError("\(path): no valid public-key line")
        }
        return key
    }

    static func readFields(path: String) throws(CurveKeyError) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CurveKeyError("cannot read key file \(path)") }
        var fields: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { throw CurveKeyError("\(path): expected 'name = value' lines") }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            fields[name] = value
        }
        return fields
    }

    /// Creates the file with mode 0600 before any byte is written, then renames it into place.
    static func writePrivate(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CurveKeyError("cannot create \(temporary): errno \(errno)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CurveKeyError("cannot write \(path)")
        }
    }
}

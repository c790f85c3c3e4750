import Foundation
import LocusStore
import LocusProtocol

/// Persists every client's authorization as one JSON file (`auth-state.json` under
/// `--state DIR`, mode 0600), written to a temporary file and renamed, so a crash leaves
/// the old state or the new one, never half of each. Pending requests are not kept:
/// they belong to the session that asked.
public struct AuthorizationStore: Sendable {
    public let path: String

    public init(directory: String) {
        path = (directory as NSString).appendingPathComponent("auth-state.json")
    }

    public func load() throws -> [String: ClientAuthorization] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let clients = root["clients"] as? [String: Any] else {
            throw ManifestError("\(path): not a Locus authorization state file")
        }
        var records: [String: ClientAuthorization] = [:]
        for (name, value) in clients {
            guard let fields = value as? [String: Any],
                  let status = (fields["status"] as? String).flatMap(AuthorizationStatus.init(rawValue:)),
                  let accuracy = (fields["accuracy"] as? String).flatMap(AccuracyAuthorization.init(rawValue:)) else {
                throw ManifestError("\(path): bad record for '\(name)'")
            }
            var record = ClientAuthorization()
            record.status = status
            record.accuracy = accuracy
            if let grant = fields["temporaryFull"] as? [String: Any], let purpose = grant["purpose"] as? String,
               let expires = grant["expires"] as? Double {
                record.temporaryFull = TemporaryFull(purpose: purpose, expires: expires)
            }
            records[name] = record
        }
        return records
    }

    /// Replaces the file; a failure (a `StorageFault`: disk full, read-only…) leaves the old one.
    public func save(_ records: [String: ClientAuthorization]) throws {
        var clients: [String: Any] = [:]
        for (name, record) in records {
            var fields: [String: Any] = ["status": record.status.rawValue, "accuracy": record.accuracy.rawValue]
            if let grant = record.temporaryFull { fields["temporaryFull"] = ["purpose": grant.purpose, "expires": grant.expires] }
            clients[name] = fields
        }
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "clients": clients], options: [.sortedKeys, .prettyPrinted])
        try StateFiles.createDirectory(StateFiles.directory(of: path))
        try StateFiles.writeAtomically([UInt8](data), to: path)
    }
}

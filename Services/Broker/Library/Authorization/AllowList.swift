public import Foundation
import LocusBus
import LocusService
public import LocusProtocol

/// One client the bus knows: its CURVE public key, roles, manifest and administrator policy.
public struct AllowListEntry: Sendable, Equatable {
    public var name: String
    public var publicKey: String
    public var roles: Set<ClientRole>
    public var manifest: UsageManifest
    /// Administrator policy: the user cannot authorize this client (Core Location's `restricted`).
    public var restricted: Bool
    /// Administrator policy that decides requests automatically instead of the person.
    public var autoGrant: (status: AuthorizationStatus, accuracy: AccuracyAuthorization)?
    /// The devices it may see (and as a provider publish for); nil: every device.
    public var devices: DeviceScope?

    public static func == (a: AllowListEntry, b: AllowListEntry) -> Bool {
        a.name == b.name && a.publicKey == b.publicKey && a.roles == b.roles && a.manifest == b.manifest
            && a.restricted == b.restricted && a.autoGrant?.status == b.autoGrant?.status
            && a.autoGrant?.accuracy == b.autoGrant?.accuracy && a.devices == b.devices
    }

    public var identity: ClientIdentity { ClientIdentity(name: name, roles: roles, devices: devices) }

    public init(name: String, publicKey: String, roles: Set<ClientRole>, manifest: UsageManifest, restricted: Bool,
                autoGrant: (status: AuthorizationStatus, accuracy: AccuracyAuthorization)?, devices: DeviceScope? = nil) {
        self.name = name
        self.publicKey = publicKey
        self.roles = roles
        self.manifest = manifest
        self.restricted = restricted
        self.autoGrant = autoGrant
        self.devices = devices
    }
}

/// The allow-list file: `{"clients": [{"name", "publicKey", "roles", "manifest", "restricted", "autoGrant", "devices"}]}`.
/// A malformed entry is left out (its key is then unknown and refused) and reported in
/// `problems`, so one typo neither stops the bus nor grants anything.
public struct AllowList: Sendable {
    public private(set) var byKey: [String: AllowListEntry] = [:]
    public private(set) var byName: [String: AllowListEntry] = [:]
    public private(set) var problems: [String] = []

    public init(entries: [AllowListEntry] = []) {
        for entry in entries { add(entry) }
    }

    public static func load(path: String) throws(ManifestError) -> AllowList {
        guard let data = FileManager.default.contents(atPath: path) else { throw ManifestError("cannot read allow-list \(path)") }
        return try parse(data)
    }

    public static func parse(_ data: Data) throws(ManifestError) -> AllowList {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let clients = root["clients"] as? [Any] else {
            throw ManifestError("the allow-list must be a JSON object with a \"clients\" array")
        }
        var list = AllowList()
        for (index, item) in clients.enumerated() {
            do { list.add(try entry(item)) } catch {
                let name = ((item as? [String: Any])?["name"] as? String).map { "'\($0)'" } ?? "#\(index + 1)"
                list.problems.append("client \(name): \(error.message)")
            }
        }
        return list
    }

    private mutating func add(_ entry: AllowListEntry) {
        if byName[entry.name] != nil || byKey[entry.publicKey] != nil {
            problems.append("client '\(entry.name)': duplicate name or key, ignored")
            return
        }
        if let other = byName.values.first(where: { Self.prefixConflict($0, entry) || Self.prefixConflict(entry, $0) }) {
            problems.append("client '\(entry.name)': one of '\(entry.name)' and '\(other.name)' starts with the other, and topics "
                            + "match by prefix, so the shorter would receive the longer's region and authorization topics; "
                            + "ignored (rename one)")
            return
        }
        byKey[entry.publicKey] = entry
        byName[entry.name] = entry
    }

    private static func entry(_ item: Any) throws(ManifestError) -> AllowListEntry {
        guard let object = item as? [String: Any] else { throw ManifestError("an entry must be a JSON object") }
        guard let name = object["name"] as? String, Self.isValidName(name) else {
            throw ManifestError("name must be 1–64 characters of letters, digits, '-' or '_'")
        }
        guard let key = object["publicKey"] as? String, CurveKeyPair.isZ85Key(key) else {
            throw ManifestError("publicKey must be a 40-character Z85 CURVE key")
        }
        var roles: Set<ClientRole> = []
        for word in object["roles"] as? [Any] ?? [] {
            guard let text = word as? String, let role = ClientRole(rawValue: text) else {
                throw ManifestError("unknown role \(word) (admin, provider, service)")
            }
            roles.insert(role)
        }
        let manifest = try object["manifest"].map { value throws(ManifestError) in try UsageManifest.parse(value) } ?? UsageManifest()
        var auto: (AuthorizationStatus, AccuracyAuthorization)?
        if let policy = object["autoGrant"] {
            guard let fields = policy as? [String: Any],
                  let status = (fields["status"] as? String).flatMap(AuthorizationStatus.init(rawValue:)),
                  status.isAuthorized || status == .denied else {
                throw ManifestError("autoGrant needs status whenInUse, always or denied")
            }
            let accuracy = (fields["accuracy"] as? String).flatMap(AccuracyAuthorization.init(rawValue:)) ?? .full
            auto = (status, accuracy)
        }
        var devices: DeviceScope?
        if let list = object["devices"] {
            guard let items = list as? [String], !items.isEmpty else {
                throw ManifestError("devices must be a non-empty list of ids or prefixes ending in *")
            }
            devices = try DeviceScope(parsing: items)
        }
        return AllowListEntry(name: name, publicKey: key, roles: roles, manifest: manifest,
                              restricted: object["restricted"] as? Bool ?? false, autoGrant: auto, devices: devices)
    }

    /// Whether `longer`'s owner topics would reach `shorter` (an app whose name is a proper prefix).
    static func prefixConflict(_ shorter: AllowListEntry, _ longer: AllowListEntry) -> Bool {
        !shorter.roles.contains(.service) && longer.name.count > shorter.name.count && longer.name.hasPrefix(shorter.name)
    }

    /// The app (untrusted entry) whose owner topics `owner` would also match, if any: such an
    /// owner id is refused, so a grant on `region.state.<app>` never reaches another owner's topics.
    public func ownerConflict<Bytes: Collection<UInt8>>(owner: Bytes) -> String? {
        for entry in byName.values where !entry.roles.contains(.service) && owner.count > entry.name.utf8.count
            && owner.starts(with: entry.name.utf8) {
            return entry.name
        }
        return nil
    }

    /// Client names become topic suffixes (`auth.status.<client>`), so they are kept to safe characters.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "_" }
    }
}

/// What a key may do beyond being an app (docs/security.md).
public enum ClientRole: String, Sendable, Equatable, CaseIterable {
    /// May send `auth.set` (the person deciding, via `locus auth`).
    case admin
    /// May publish `location.raw.*` and `motion.*`: no spoofed positions from an arbitrary client.
    case provider
    /// A Locus service (fusion, geofence, notifier): sees and publishes everything but `auth.status.*`.
    case service
}

/// Who sent or asked for something on the bus: the ZAP user id of a CURVE key, or the
/// local identity for NULL connections on the 0700 ipc directory.
public struct ClientIdentity: Sendable, Equatable {
    public var name: String
    public var roles: Set<ClientRole>

    public init(name: String, roles: Set<ClientRole>) {
        self.name = name
        self.roles = roles
    }

    /// Services see full accuracy without a user grant; apps go through authorization.
    public var isTrusted: Bool { roles.contains(.service) }
}

/// What the bus does with one published message, decided from its topic and sender.
public enum PublishDecision: Sendable, Equatable {
    case forward
    /// `auth.cmd`: handled by the bus, never forwarded.
    case authCommand
    /// `region.cmd` from an app: forwarded only when its owner may own regions.
    case regionCommand
    case refuse(code: String, reason: String)

    /// Publishing rules per role. Only the bus writes `auth.status.*` and `auth.pending.*`.
    public static func decide<Bytes: Collection<UInt8>>(topic: Bytes, sender: ClientIdentity) -> PublishDecision {
        func has(_ prefix: String) -> Bool { topic.starts(with: prefix.utf8) }
        if has("auth.status.") || has("auth.pending.") {
            return .refuse(code: "forged", reason: "only the bus publishes auth.status and auth.pending")
        }
        if topic.elementsEqual("auth.cmd".utf8) { return .authCommand }
        if sender.isTrusted { return .forward }
        if has("location.raw.") || has("motion.") {
            return sender.roles.contains(.provider)
                ? .forward : .refuse(code: "notAuthorized", reason: "publishing location.raw and motion needs the provider role")
        }
        if topic.elementsEqual("region.cmd".utf8) { return .regionCommand }
        if has("health.") || has("error.") || topic.elementsEqual("notify.request".utf8) { return .forward }
        return .refuse(code: "notAuthorized", reason: "clients may not publish on this topic")
    }
}

import LocusProtocol
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
    /// The devices it may see and (a provider) publish for; nil: every device.
    public var devices: DeviceScope?

    public init(name: String, roles: Set<ClientRole>, devices: DeviceScope? = nil) {
        self.name = name
        self.roles = roles
        self.devices = devices
    }

    /// Services see full accuracy without a user grant; apps go through authorization.
    public var isTrusted: Bool { roles.contains(.service) }
}

/// What the bus does with one published message, decided from its topic and sender.
public enum PublishDecision: Sendable, Equatable {
    case forward
    /// `auth.cmd`: handled by the bus, never forwarded.
    case authCommand
    /// `region.cmd`: an app may act only for itself, and no owner id may extend an app's.
    case regionCommand
    case refuse(code: String, reason: String)

    /// Publishing rules per role (docs/security.md, the topic table). Only the bus writes
    /// `auth.status.*` and `auth.pending.*`; only services write `health.*` and `error.*`
    /// (a provider its own `health.provider` and `error.provider`); a provider with a device
    /// scope publishes positions and motion for those devices only.
    public static func decide<Bytes: Collection<UInt8>>(topic: Bytes, sender: ClientIdentity) -> PublishDecision {
        func has(_ prefix: String) -> Bool { topic.starts(with: prefix.utf8) }
        if has(Topic.authStatusPrefix) || has(Topic.authPendingPrefix) {
            return .refuse(code: "forged", reason: "only the bus publishes auth.status and auth.pending")
        }
        if topic.elementsEqual(Topic.authCmd.utf8) { return .authCommand }
        if topic.elementsEqual(Topic.regionCmd.utf8) { return .regionCommand }
        if sender.isTrusted { return .forward }
        let isProvider = sender.roles.contains(.provider)
        for root in [Topic.locationRawPrefix, Topic.motionPrefix] where has(root) {
            guard isProvider else {
                return .refuse(code: "notAuthorized", reason: "publishing location.raw and motion needs the provider role")
            }
            let device = topic.dropFirst(root.utf8.count)
            if let scope = sender.devices, !scope.covers(device: device) {
                return .refuse(code: "notAuthorized",
                               reason: "device '\(String(decoding: Array(device), as: UTF8.self))' is outside \(sender.name)'s device scope")
            }
            return .forward
        }
        if has(Topic.healthPrefix) || has(Topic.errorPrefix) {
            if isProvider && (topic.elementsEqual(Topic.health("provider").utf8) || topic.elementsEqual(Topic.error("provider").utf8)) {
                return .forward
            }
            return .refuse(code: "forged", reason: "only services publish health and error (\(String(decoding: Array(topic), as: UTF8.self)))")
        }
        if topic.elementsEqual(Topic.notifyRequest.utf8) { return .forward }
        return .refuse(code: "notAuthorized", reason: "clients may not publish on this topic")
    }
}

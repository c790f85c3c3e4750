import LocusProtocol
/// What one client may receive, as topic prefixes an XPUB can grant (docs/security.md,
/// the topic table).
///
/// Guarded roots are families whose topics reach the client only under one of its
/// allowed prefixes: locations and visits (by tier and device scope), motion and control
/// (by device scope), and the owner families (`region.state.<owner>`,
/// `region.event.<owner>`, `auth.status.<client>`, `auth.pending.<client>`: the client's
/// own id only), and what services say to each other (`region.cmd`, `notify.*`, `bus.*`).
/// Health and errors are not guarded.
///
/// An XPUB matches by prefix and cannot express "everything except", so a request above a
/// guarded root ("" or "region.") becomes the one-byte-longer prefixes that avoid each
/// root, recursively along it, plus the allowed prefixes under the request: the grant
/// matches exactly what the request matches minus what the policy forbids (topic bytes
/// are 0x21–0x7e and 0x80–0xff: the bus rejects others).
public struct ReceivePolicy: Sendable, Equatable {
    public private(set) var guardedRoots: [[UInt8]]
    public private(set) var allowed: [[UInt8]]

    /// Everything, unguarded: trusted services and the local identity.
    public static let everything = ReceivePolicy(guardedRoots: [], allowed: [])

    public static let locationRoots = [Topic.locationPrefix, Topic.visitPrefix]
    /// Device families a scope narrows (the device id follows the root).
    public static let deviceRoots = [Topic.locationRawPrefix, Topic.locationFusedPrefix, Topic.locationApproxPrefix, Topic.locationSignificantPrefix,
                                     Topic.visitPrefix, Topic.motionPrefix, Topic.controlPrefix]
    public static let ownerRoots = [Topic.regionStatePrefix, Topic.regionEventPrefix, Topic.authStatusPrefix, Topic.authPendingPrefix]
    /// What services say to each other: other apps' region commands (with their shapes), notifications
    /// (the notifier's deliveries and apps' requests) and the bus's replays. Services and administrators only.
    public static let serviceRoots = [Topic.regionCmd, Topic.notifyPrefix, Topic.busPrefix]
    static let alphabet: [UInt8] = Array(0x21...0x7e) + Array(0x80...0xff)

    public init(guardedRoots: [[UInt8]], allowed: [[UInt8]]) {
        // A root wholly allowed needs no guarding (a full client's "location.").
        self.guardedRoots = guardedRoots.filter { root in !allowed.contains { root.starts(with: $0) } }
        // An allowed prefix under a shorter allowed one adds nothing.
        self.allowed = allowed.enumerated().filter { index, prefix in
            !allowed.enumerated().contains { other, shorter in
                other != index && prefix.starts(with: shorter) && (shorter.count < prefix.count || other < index)
            }
        }.map(\.element)
    }

    /// The policy of a client that is not trusted.
    /// - Parameters:
    ///   - name: its id: the owner families reach it under this id only.
    ///   - authorized: whenInUse or always (it may see its own region replies).
    ///   - allOwners: an administrator: every owner's topics (region events still by tier).
    public static func client(name: String, tier: AccessTier, authorized: Bool, scope: DeviceScope?,
                              allOwners: Bool = false) -> ReceivePolicy {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        var roots = (locationRoots + ownerRoots + serviceRoots).map(bytes)
        var allowed: [[UInt8]] = []
        let tierRoots: [String]
        switch tier {
        case .none: tierRoots = []
        case .reduced: tierRoots = [Topic.locationApproxPrefix]
        case .full: tierRoots = scope == nil ? locationRoots : Array(deviceRoots.prefix(5))
        }
        if let scope {
            roots += [Topic.motionPrefix, Topic.controlPrefix].map(bytes)
            for root in tierRoots + [Topic.motionPrefix, Topic.controlPrefix] {
                allowed += scope.grantSuffixes.map { bytes(root) + $0 }
            }
        } else {
            allowed += tierRoots.map(bytes)
        }
        if allOwners { allowed += serviceRoots.map(bytes) }
        let owner = allOwners ? "" : name
        allowed += [bytes(Topic.authStatusPrefix + owner), bytes(Topic.authPendingPrefix + owner)]
        if authorized || allOwners { allowed.append(bytes(Topic.regionStatePrefix + owner)) }
        if tier == .full { allowed.append(bytes(Topic.regionEventPrefix + owner)) }
        return ReceivePolicy(guardedRoots: roots, allowed: allowed)
    }

    /// The prefixes to subscribe on the client's pipe for its request `prefix`.
    public func grants(for prefix: [UInt8]) -> [[UInt8]] {
        if guardedRoots.contains(where: { prefix.starts(with: $0) }) {
            if allowed.contains(where: { prefix.starts(with: $0) }) { return [prefix] }
            return allowed.filter { $0.starts(with: prefix) }
        }
        let roots = guardedRoots.filter { $0.starts(with: prefix) }
        if roots.isEmpty { return [prefix] }
        var result: [[UInt8]] = []
        Self.expand(prefix, avoiding: roots, into: &result)
        result += allowed.filter { $0.starts(with: prefix) }
        return result
    }

    private static func expand(_ prefix: [UInt8], avoiding roots: [[UInt8]], into result: inout [[UInt8]]) {
        for byte in alphabet {
            let next = prefix + [byte]
            let below = roots.filter { $0.starts(with: next) }
            if below.isEmpty {
                result.append(next)
            } else if !below.contains(where: { $0 == next }) {
                expand(next, avoiding: below, into: &result)
            }
        }
    }

    /// Whether a topic may reach the client (last-value replays, and the tests' model).
    public func mayReceive<Bytes: Collection<UInt8>>(topic: Bytes) -> Bool {
        guard guardedRoots.contains(where: { topic.starts(with: $0) }) else { return true }
        return allowed.contains { topic.starts(with: $0) }
    }
}

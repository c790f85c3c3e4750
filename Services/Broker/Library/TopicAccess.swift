/// How much location a client may receive on the bus (docs/security.md, enforcement at the bus).
public enum AccessTier: Sendable, Equatable {
    /// notDetermined, denied, restricted: no `location.*`, `visit.*`, `region.event.*`.
    case none
    /// Authorized with reduced accuracy: `location.approx.*` only.
    case reduced
    /// Authorized with full accuracy (or a temporary full grant), and trusted services.
    case full
}

/// Turns a client's subscription into the narrower prefixes it may actually have.
///
/// An XPUB matches by prefix only and cannot express "everything except", so a request
/// for "" or "location" becomes the set of one-byte-longer prefixes that avoid every
/// sensitive root, recursively along each root, plus the sensitive prefixes the tier
/// allows. The granted set matches exactly the topics the request matches that the
/// tier permits (topic bytes are 0x21–0x7e and 0x80–0xff: the bus rejects others).
public enum TopicAccess {
    public static let sensitiveRoots: [[UInt8]] = ["location.", "visit.", "region.event."].map { Array($0.utf8) }
    public static let reducedPrefix: [UInt8] = Array("location.approx.".utf8)
    static let alphabet: [UInt8] = Array(0x21...0x7e) + Array(0x80...0xff)

    /// The sensitive prefixes a tier may receive.
    public static func allowedSensitivePrefixes(_ tier: AccessTier) -> [[UInt8]] {
        switch tier {
        case .none: return []
        case .reduced: return [reducedPrefix]
        case .full: return sensitiveRoots
        }
    }

    /// The prefixes to subscribe on the client's pipe for its request `prefix`.
    public static func grants(for prefix: [UInt8], tier: AccessTier) -> [[UInt8]] {
        if tier == .full { return [prefix] }
        let allowed = allowedSensitivePrefixes(tier)
        if sensitiveRoots.contains(where: { prefix.starts(with: $0) }) {
            if allowed.contains(where: { prefix.starts(with: $0) }) { return [prefix] }
            return allowed.filter { $0.starts(with: prefix) }
        }
        let roots = sensitiveRoots.filter { $0.starts(with: prefix) }
        if roots.isEmpty { return [prefix] }
        var result: [[UInt8]] = []
        expand(prefix, avoiding: roots, into: &result)
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

    /// Whether a topic may reach a client of this tier (used for last-value replays).
    public static func mayReceive<Bytes: Collection<UInt8>>(topic: Bytes, tier: AccessTier) -> Bool {
        guard sensitiveRoots.contains(where: { topic.starts(with: $0) }) else { return true }
        return allowedSensitivePrefixes(tier).contains { topic.starts(with: $0) }
    }
}

/// Topic names (docs/protocol.md "Topics and types"): builders, so no service spells a prefix
/// by hand, and a parser for the id after a prefix. Subscriptions match by prefix.
public enum Topic {
    /// Longest id, in UTF-8 bytes, allowed in a topic.
    public static let maximumIDBytes = 200

    // MARK: - Prefixes (subscribe to these to get every device/owner/…)

    /// Every position stream (raw, fused, approx, significant, late).
    public static let locationPrefix = "location."
    public static let locationRawPrefix = "location.raw."
    public static let locationFusedPrefix = "location.fused."
    public static let locationApproxPrefix = "location.approx."
    public static let locationSignificantPrefix = "location.significant."
    public static let locationLatePrefix = "location.late."
    public static let visitPrefix = "visit."
    public static let motionPrefix = "motion."
    public static let controlPrefix = "control."
    public static let regionStatePrefix = "region.state."
    public static let regionEventPrefix = "region.event."
    public static let authStatusPrefix = "auth.status."
    public static let authPendingPrefix = "auth.pending."
    /// Every region topic: commands, replies and events.
    public static let regionPrefix = "region."
    /// What the bus itself answers (replays and their markers).
    public static let busPrefix = "bus."
    public static let notifyPrefix = "notify."
    public static let healthPrefix = "health."
    public static let errorPrefix = "error."

    /// Where clients send region commands.
    public static let regionCmd = "region.cmd"
    /// Where clients and administrators send authorization commands.
    public static let authCmd = "auth.cmd"
    /// Where clients ask the notifier for a notification or a destination.
    public static let notifyRequest = "notify.request"

    // MARK: - Builders (ids are not checked here: validate the message or use `isValidID`)

    public static func locationRaw(_ device: String) -> String { locationRawPrefix + device }
    public static func locationFused(_ device: String) -> String { locationFusedPrefix + device }
    public static func locationApprox(_ device: String) -> String { locationApproxPrefix + device }
    public static func locationSignificant(_ device: String) -> String { locationSignificantPrefix + device }
    /// Real fixes that arrived after newer ones of their device: history, not the current position.
    public static func locationLate(_ device: String) -> String { locationLatePrefix + device }
    public static func visit(_ device: String) -> String { visitPrefix + device }
    public static func motion(_ device: String) -> String { motionPrefix + device }
    public static func control(_ device: String) -> String { controlPrefix + device }
    public static func regionState(_ owner: String) -> String { regionStatePrefix + owner }
    public static func regionEvent(_ owner: String) -> String { regionEventPrefix + owner }
    public static func authStatus(_ client: String) -> String { authStatusPrefix + client }
    public static func authPending(_ client: String) -> String { authPendingPrefix + client }
    public static func notify(_ sink: String) -> String { notifyPrefix + sink }
    public static func health(_ service: String) -> String { healthPrefix + service }
    public static func error(_ service: String) -> String { errorPrefix + service }

    // MARK: - Parsing

    /// The id after `prefix` (`"location.raw.x"`, `"location.raw."` → `"x"`), or nil when
    /// the topic does not start with the prefix or what follows is not a valid id.
    public static func suffix(of topic: String, after prefix: String) -> String? {
        guard topic.utf8.starts(with: prefix.utf8) else { return nil }
        let rest = String(topic.utf8.dropFirst(prefix.utf8.count))!
        return isValidID(rest) ? rest : nil
    }

    /// Whether `topic` is `prefix` followed by `id`, a valid id: the same answer as
    /// `suffix(of: topic, after: prefix) == id`, compared in place for the usual ASCII topic
    /// (a receiver checks this for every message, and building the suffix costs an allocation).
    public static func topic(_ topic: String, is prefix: String, plus id: String) -> Bool {
        var (topic, prefix, id) = (topic, prefix, id)
        let bytesEqual = topic.withUTF8 { topicBytes in
            prefix.withUTF8 { prefixBytes in
                id.withUTF8 { idBytes in
                    topicBytes.count == prefixBytes.count + idBytes.count
                        && topicBytes[..<prefixBytes.count].elementsEqual(prefixBytes)
                        && topicBytes[prefixBytes.count...].elementsEqual(idBytes)
                }
            }
        }
        if bytesEqual { return isValidID(id) }
        // Outside ASCII, Strings compare by canonical equivalence, not bytes.
        guard topic.utf8.contains(where: { $0 >= 0x80 }) || id.utf8.contains(where: { $0 >= 0x80 }) else { return false }
        return suffix(of: topic, after: prefix) == id
    }

    /// Whether `id` may name a device, owner, client, sink or service: non-empty, at most
    /// 200 UTF-8 bytes, no whitespace and no control characters (it must survive the text
    /// form, which splits on a space, and a shell).
    public static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= maximumIDBytes else { return false }
        var asciiOnly = true
        for byte in id.utf8 {
            if byte >= 0x80 {
                asciiOnly = false
                break
            }
            if byte < 0x21 || byte == 0x7F { return false }
        }
        if asciiOnly { return true }
        for scalar in id.unicodeScalars {
            if scalar.value < 0x21 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.isWhitespace {
                return false
            }
        }
        return true
    }

    /// Whether `topic` can be published: non-empty, at most 1 KiB, no whitespace or control characters.
    public static func isValidTopic(_ topic: String) -> Bool {
        guard !topic.isEmpty, topic.utf8.count <= 1024 else { return false }
        // ASCII (every topic Locus builds) is decided on bytes, without Unicode property lookups.
        var asciiOnly = true
        for byte in topic.utf8 {
            if byte >= 0x80 {
                asciiOnly = false
                break
            }
            if byte < 0x21 || byte == 0x7F { return false }
        }
        if asciiOnly { return true }
        return !topic.unicodeScalars.contains { $0.value < 0x21 || (0x7F...0x9F).contains($0.value) || $0.properties.isWhitespace }
    }
}

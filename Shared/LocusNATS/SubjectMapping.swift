import LocusProtocol
/// The rule that turns a Locus topic into a NATS subject and back (docs/nats.md, "Subjects").
///
/// NATS splits subjects into tokens at `.` and reserves `*` and `>` as wildcards and white
/// space as a separator, while a Locus id (device, owner, sink, …) may contain any of `.`,
/// `*`, `>` after its prefix. So the id after a known prefix becomes one token with those
/// bytes percent-escaped (`%2E`, `%2A`, `%3E`, `%25` for `%` itself, and every byte below
/// `!` or `0x7F`); other topics are split at their dots and each token escaped alike.
/// `location.raw` and `location.fused` subjects may carry a partition token the server
/// inserts (`location.fused.2.car%2E1`): reading them back drops it.
public enum SubjectMapping {
    /// Prefixes after which the rest of the topic is one id (the device, owner, client, sink, service).
    public static let idPrefixes = [Topic.locationRawPrefix, Topic.locationFusedPrefix, Topic.locationApproxPrefix, Topic.locationSignificantPrefix,
                                    Topic.visitPrefix, Topic.motionPrefix, Topic.controlPrefix, Topic.regionStatePrefix, Topic.regionEventPrefix,
                                    Topic.authStatusPrefix, Topic.authPendingPrefix, Topic.notifyPrefix, Topic.healthPrefix, Topic.errorPrefix, "bus.replayed."]
    /// Kinds whose subjects the server partitions by device (`--partition K/N`).
    public static let partitionedPrefixes = [Topic.locationRawPrefix, Topic.locationFusedPrefix]

    /// The subject a message on `topic` is published on.
    public static func subject(forTopic topic: String) -> String {
        for prefix in idPrefixes where topic.utf8.starts(with: prefix.utf8) {
            let id = topic.utf8.dropFirst(prefix.utf8.count)
            return String(decoding: prefix.utf8.dropLast(), as: UTF8.self) + "." + escape(id)
        }
        return topic.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            .map { escape($0) }.joined(separator: ".")
    }

    /// The topic of a message received on `subject`, or nil when a token holds a broken escape.
    public static func topic(forSubject subject: String) -> String? {
        var tokens = subject.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for prefix in idPrefixes {
            let prefixTokens = prefix.utf8.split(separator: UInt8(ascii: ".")).count
            guard tokens.count > prefixTokens, subject.utf8.starts(with: prefix.utf8) else { continue }
            if partitionedPrefixes.contains(prefix) && tokens.count == prefixTokens + 2 {
                tokens.remove(at: prefixTokens)  // the server's partition token
            }
            guard tokens.count == prefixTokens + 1, let id = unescape(tokens[prefixTokens]) else { return nil }
            return prefix + id
        }
        var parts: [String] = []
        for token in tokens {
            guard let part = unescape(token) else { return nil }
            parts.append(part)
        }
        return parts.joined(separator: ".")
    }

    /// The subject filters that receive what a ZeroMQ subscription to `prefix` receives. A
    /// prefix ending in `.` becomes `prefix>`; any other covers the topic itself and the
    /// topics below it (`region.cmd` → `region.cmd`, `region.cmd.>`). A prefix that ends
    /// inside a token (`location.raw.ca`) cannot be expressed and is matched as a whole token.
    public static func filters(forPrefix prefix: String) -> [String] {
        if prefix.isEmpty { return [">"] }
        if prefix.hasSuffix(".") {
            let tokens = prefix.utf8.dropLast().split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            return [tokens.map { escape($0) }.joined(separator: ".") + ".>"]
        }
        let exact = subject(forTopic: prefix)
        return [exact, exact + ".>"]
    }

    /// The filter for one partition's share of a partitioned kind: `location.fused.` → `location.fused.K.>`.
    public static func partitionFilter(forPrefix prefix: String, partition: Int) -> String {
        String(decoding: prefix.utf8.dropLast(), as: UTF8.self) + ".\(partition).>"
    }

    private static func mustEscape(_ byte: UInt8) -> Bool {
        byte < 0x21 || byte == 0x7F || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "*")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "%")
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// One token: reserved bytes as `%XX`; an empty token as `%00` (NATS has no empty tokens,
    /// and a topic never holds a NUL byte, so it cannot be mistaken for one).
    static func escape<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if bytes.isEmpty { return "%00" }
        if !bytes.contains(where: mustEscape) { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        for byte in bytes {
            if mustEscape(byte) {
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func unescape<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        if !bytes.contains(UInt8(ascii: "%")) { return String(decoding: bytes, as: UTF8.self) }
        let raw = Array(bytes)
        if raw == Array("%00".utf8) { return "" }
        var out: [UInt8] = []
        var index = 0
        while index < raw.count {
            if raw[index] == UInt8(ascii: "%") {
                guard index + 2 < raw.count,
                      let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(raw[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

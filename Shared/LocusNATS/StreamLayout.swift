import LocusProtocol
/// Which JetStream stream keeps which topics, and so how a subscription is served
/// (docs/nats.md, "Streams"). Three streams stand in for what the ZeroMQ bus keeps:
///
/// - `LOCUS_FIXES` — `location.raw`, `location.fused`: the position flow that services
///   consume, read through durable consumers so a restarted fusion or geofence partition
///   resumes where it stopped; a new consumer starts with each device's last position.
/// - `LOCUS_EVENTS` — region events, visits, notifications, `region.cmd`, `auth.cmd`: the
///   replay ring, read through durable consumers; publishes are de-duplicated by `id`.
/// - `LOCUS_STATE` — one message per subject (the last-value cache) for the other
///   `location.*`, `auth.status.*`, `auth.pending.*`, `region.state.*`, `health.*`.
///
/// Everything else (`motion.*`, `control.*`, `error.*`, `bus.*`) is plain NATS, not stored.
public enum StreamLayout {
    public struct Stream: Sendable, Equatable {
        public var name: String
        public var subjects: [String]
        /// Messages kept per subject; 0: no limit.
        public var maximumPerSubject: Int
        /// Seconds a message is kept.
        public var maximumAgeSeconds: Double
        /// Topic prefixes whose messages are stored here (the subjects' source).
        public var prefixes: [String]
    }

    public static let fixes = Stream(name: "LOCUS_FIXES", subjects: ["location.raw.>", "location.fused.>"],
                                     maximumPerSubject: 0, maximumAgeSeconds: 3600,
                                     prefixes: [Topic.locationRawPrefix, Topic.locationFusedPrefix])
    public static let events = Stream(name: "LOCUS_EVENTS",
                                      subjects: ["region.event.>", "visit.>", "notify.>", Topic.regionCmd, Topic.authCmd],
                                      maximumPerSubject: 0, maximumAgeSeconds: 24 * 3600,
                                      prefixes: [Topic.regionEventPrefix, Topic.visitPrefix, Topic.notifyPrefix, Topic.regionCmd, Topic.authCmd])
    public static let state = Stream(name: "LOCUS_STATE",
                                     subjects: ["location.approx.>", "location.significant.>", "auth.status.>",
                                                "auth.pending.>", "region.state.>", "health.>"],
                                     maximumPerSubject: 1, maximumAgeSeconds: 24 * 3600,
                                     prefixes: [Topic.locationApproxPrefix, Topic.locationSignificantPrefix, Topic.authStatusPrefix,
                                                Topic.authPendingPrefix, Topic.regionStatePrefix, Topic.healthPrefix])
    /// With `--fix-delivery plain`: each device's last position, one message per subject
    /// (`last.` + the position's subject), written by the publisher at most once per interval.
    public static let lastFixes = Stream(name: "LOCUS_LAST_FIXES", subjects: ["last.location.raw.>", "last.location.fused.>"],
                                         maximumPerSubject: 1, maximumAgeSeconds: 24 * 3600, prefixes: [])
    public static let all = [fixes, events, state]

    /// The streams a deployment with this fix delivery uses (and creates when missing).
    public static func streams(for delivery: FixDelivery) -> [Stream] {
        switch delivery {
        case .durable: return all
        case .plain: return [events, state, lastFixes]
        }
    }

    /// Where the last position of a fix published plainly on `subject` is kept.
    public static func lastValueSubject(forSubject subject: String) -> String { "last." + subject }

    /// The position subject a stored last value stands for (nil for another subject).
    public static func subject(forLastValueSubject subject: String) -> String? {
        subject.hasPrefix("last.") ? String(subject.dropFirst(5)) : nil
    }

    /// How messages on a topic travel.
    public enum Route: Sendable, Equatable {
        /// Published to JetStream with its `id` as `Nats-Msg-Id`; read through a durable consumer.
        case durable(Stream)
        /// Published plainly (the stream keeps the last one per subject); read live, after the stored last values.
        case lastValue(Stream)
        /// Plain NATS.
        case plain
        /// Positions with `--fix-delivery plain`: plain NATS on the same subjects; the
        /// publisher keeps each device's last one in the stream (`lastValueSubject`), which
        /// a subscriber reads first.
        case live(lastValues: Stream)
    }

    public static func route(forTopic topic: String, delivery: FixDelivery = .durable) -> Route {
        if delivery == .plain, fixes.prefixes.contains(where: { topic.hasPrefix($0) }) { return .live(lastValues: lastFixes) }
        if let stream = stream(forTopic: topic) {
            return stream.maximumPerSubject == 1 ? .lastValue(stream) : .durable(stream)
        }
        return .plain
    }

    /// How a subscription to a topic prefix is served: by the stream that stores all of it, else plainly.
    public static func route(forPrefix prefix: String, delivery: FixDelivery = .durable) -> Route {
        route(forTopic: prefix, delivery: delivery)
    }

    static func stream(forTopic topic: String) -> Stream? {
        for stream in all {
            for prefix in stream.prefixes where matches(topic, prefix) { return stream }
        }
        return nil
    }

    /// Prefixes ending in `.` match by prefix; the exact command topics match themselves.
    private static func matches(_ topic: String, _ prefix: String) -> Bool {
        prefix.hasSuffix(".") ? topic.hasPrefix(prefix) : topic == prefix
    }

    /// Whether a new durable consumer on this prefix starts with everything stored (commands,
    /// so a new instance learns the regions), each subject's last message (positions, so a
    /// late joiner has one at once) or only what comes next (events already handled by
    /// someone else are not notified again).
    public enum Start: Sendable, Equatable { case everything, lastPerSubject, new }

    public static func start(forPrefix prefix: String) -> Start {
        if prefix == Topic.regionCmd || prefix == Topic.authCmd { return .everything }
        if fixes.prefixes.contains(where: { prefix.hasPrefix($0) }) { return .lastPerSubject }
        return .new
    }

    /// A durable consumer's name: service, instance and the prefix (NATS names allow no `.`, `*`, `>`).
    public static func consumerName(service: String, instance: String, prefix: String) -> String {
        let raw = "\(service)_\(instance)_\(prefix)"
        return String(raw.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") ? c : "_"
        })
    }
}

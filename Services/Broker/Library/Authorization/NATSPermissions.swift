import LocusNATS
public import LocusProtocol

/// The bus's authorization — allow-list roles, device scopes and each client's tier — as the
/// subject permissions of a NATS user (docs/nats.md, "Authorization"). The same rules as
/// `ReceivePolicy` and `PublishDecision`, written as NATS subjects; a NATS server can only
/// allow or refuse a subscription, not narrow it, so a client subscribes to what it may
/// receive (`location.approx.>`), and a broader subscription (`location.>`) is refused.
///
/// Every list is allow-only: what is not listed is refused. Each user's inbox is
/// `_INBOX_<name>.>` (Locus's clients set it as their inbox prefix), so no client can read
/// replies meant for another — pull-consumer deliveries to a service among them.
public struct NATSPermissions: Sendable, Equatable {
    public var publish: [String]
    /// Refused even where `publish` allows (`auth.status.>` for services).
    public var publishDenied: [String] = []
    public var subscribe: [String]
    /// What the allow-list asks that NATS subjects cannot express (left out, never widened).
    public var problems: [String] = []

    public init(publish: [String], publishDenied: [String] = [], subscribe: [String], problems: [String] = []) {
        self.publish = publish
        self.publishDenied = publishDenied
        self.subscribe = subscribe
        self.problems = problems
    }

    /// The process that decides authorization: the only one that publishes `auth.status.*` and `auth.pending.*`.
    public static let authority = NATSPermissions(publish: [">"], subscribe: [">"])

    /// A Locus service: everything but the authority's topics.
    public static let service = NATSPermissions(publish: [">"], publishDenied: [family(Topic.authStatusPrefix), family(Topic.authPendingPrefix)],
                                                subscribe: [">"])

    /// The permissions of an allow-list client in its current authorization.
    public static func client(_ entry: AllowListEntry, authorization: ClientAuthorization?, now: Double) -> NATSPermissions {
        if entry.roles.contains(.service) { return service }
        let record = authorization ?? ClientAuthorization()
        let tier = record.tier(now: now)
        let authorized = record.status == .whenInUse || record.status == .always
        let admin = entry.roles.contains(.admin)
        var problems: [String] = []
        let scope = entry.identity.devices

        // Receiving (ReceivePolicy.client).
        var subscribe = ["\(NATSCredentials.inboxPrefix(user: entry.name)).>", family(Topic.healthPrefix), family(Topic.errorPrefix)]
        let tierRoots: [String]
        switch tier {
        case .none: tierRoots = []
        case .reduced: tierRoots = [Topic.locationApproxPrefix]
        case .full: tierRoots = scope == nil ? ReceivePolicy.locationRoots : Array(ReceivePolicy.deviceRoots.prefix(5))
        }
        let deviceRoots = tierRoots + [Topic.motionPrefix, Topic.controlPrefix]
        if let scope {
            subscribe += scoped(deviceRoots, scope, problems: &problems)
        } else {
            subscribe += deviceRoots.map(family)
        }
        if admin {
            subscribe += [Topic.authStatusPrefix, Topic.authPendingPrefix, Topic.regionStatePrefix].map(family)
            subscribe += [Topic.regionCmd, family(Topic.notifyPrefix), family(Topic.busPrefix)]
            if tier == .full { subscribe.append(family(Topic.regionEventPrefix)) }
        } else {
            subscribe += [Topic.authStatus(entry.name), Topic.authPending(entry.name)].map(SubjectMapping.subject(forTopic:))
            if authorized { subscribe.append(SubjectMapping.subject(forTopic: Topic.regionState(entry.name))) }
            if tier == .full { subscribe.append(SubjectMapping.subject(forTopic: Topic.regionEvent(entry.name))) }
        }

        // Publishing (PublishDecision): commands and notification requests for everyone;
        // positions and motion for providers, in their scope; their own health and errors.
        var publish = [Topic.authCmd, Topic.regionCmd, Topic.notifyRequest]
        if entry.roles.contains(.provider) {
            let roots = [Topic.locationRawPrefix, Topic.motionPrefix]
            publish += scope.map { scoped(roots, $0, problems: &problems) } ?? roots.map(family)
            // With --fix-delivery plain a provider also keeps its devices' last positions (docs/nats.md).
            publish += publish.filter { $0.hasPrefix(Topic.locationRawPrefix) && !$0.contains("*") }.map(StreamLayout.lastValueSubject(forSubject:))
            publish += [Topic.health("provider"), Topic.error("provider")]
            // The runtime looks its streams up at start.
            publish.append("$JS.API.STREAM.INFO.*")
        }
        return NATSPermissions(publish: publish, subscribe: unique(subscribe), problems: unique(problems))
    }

    /// `location.raw.` → `location.raw.>`.
    static func family(_ prefix: String) -> String { SubjectMapping.filters(forPrefix: prefix)[0] }

    /// Each device family for the devices of a scope: exact ids as one subject token each;
    /// `*` alone as the whole family. A prefix entry (`van-*`) has no NATS subject: left out.
    private static func scoped(_ roots: [String], _ scope: DeviceScope, problems: inout [String]) -> [String] {
        var subjects: [String] = []
        for entry in scope.entries {
            if entry.isPrefix && !entry.text.isEmpty {
                problems.append("device scope '\(entry.text)*' cannot be a NATS subject (tokens match whole); list the ids")
                continue
            }
            for root in roots {
                guard !entry.isPrefix else {
                    subjects.append(family(root))
                    continue
                }
                let subject = SubjectMapping.subject(forTopic: root + entry.text)
                subjects.append(subject)
                if SubjectMapping.partitionedPrefixes.contains(root) {
                    // Stored and delivered with the servers' partition token before the id.
                    subjects.append(root + "*." + subject.dropFirst(root.utf8.count))
                }
            }
        }
        return subjects
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }
}

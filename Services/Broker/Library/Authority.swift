import Foundation
public import LocusProtocol

/// The authorization owner's logic, without sockets: it answers `auth.cmd` messages,
/// expires temporary grants and says which clients' access changed, so the broker can
/// publish `auth.status.<client>` and re-apply subscriptions.
public struct Authority: Sendable {
    public let allowList: AllowList
    public private(set) var records: [String: ClientAuthorization]
    /// Requests per client in the current window, to refuse floods without changing state.
    private var requestTimes: [String: [Double]] = [:]
    public static let requestLimit = 5
    public static let requestWindowSeconds = 10.0
    public static let defaultTemporarySeconds = 3600.0

    public init(allowList: AllowList, records: [String: ClientAuthorization] = [:]) {
        self.allowList = allowList
        var records = records
        for entry in allowList.byName.values where entry.restricted {
            records[entry.name, default: ClientAuthorization()].status = .restricted
        }
        self.records = records
    }

    /// What one command did.
    public struct Outcome: Sendable, Equatable {
        /// Clients whose status message must be published again.
        public var changed: [String] = []
        public var errors: [ErrorReport] = []
    }

    public func record(_ client: String) -> ClientAuthorization { records[client] ?? ClientAuthorization() }

    public func tier(of identity: ClientIdentity, now: Double) -> AccessTier {
        identity.isTrusted ? .full : record(identity.name).tier(now: now)
    }

    /// Handles one `auth.cmd` message from `sender`; `fields` is the raw JSON object (for extension fields).
    public mutating func handle(_ message: Message, fields: [String: Any], from sender: ClientIdentity, now: Double) -> Outcome {
        let ref = message.envelope.id
        func fail(_ code: String, _ text: String) -> Outcome {
            Outcome(errors: [ErrorReport(code: code, message: text, topic: Topic.authCmd, ref: ref)])
        }
        switch message.body {
        case .authRequest(let request):
            guard request.client == sender.name else {
                return fail("forged", "\(sender.name) may not request for '\(request.client)'")
            }
            return handleRequest(request, sender: sender, now: now, fail: fail)
        case .authSet(let command):
            guard sender.roles.contains(.admin) else {
                return fail("notAuthorized", "auth.set needs the admin role; \(sender.name) has none")
            }
            return handleSet(command, fields: fields, now: now, fail: fail)
        default:
            return fail("badCommand", "auth.cmd takes auth.request or auth.set, not \(message.body.type)")
        }
    }

    private mutating func handleRequest(_ request: AuthRequest, sender: ClientIdentity, now: Double,
                                        fail: (String, String) -> Outcome) -> Outcome {
        var times = (requestTimes[sender.name] ?? []).filter { now - $0 < Self.requestWindowSeconds }
        guard times.count < Self.requestLimit else {
            return fail("rateLimited", "more than \(Self.requestLimit) requests in \(Int(Self.requestWindowSeconds)) s from \(sender.name); ignored")
        }
        times.append(now)
        requestTimes[sender.name] = times
        guard let entry = allowList.byName[sender.name] else { return fail("unknownClient", "\(sender.name) is not on the allow-list") }
        var record = self.record(sender.name)
        guard record.status != .restricted else {
            return fail("restricted", "\(sender.name) is restricted by administrator policy")
        }
        let description: String
        switch request.level {
        case "whenInUse":
            guard let text = entry.manifest.whenInUse else {
                return fail("missingUsageDescription", "\(sender.name)'s manifest has no whenInUse description")
            }
            description = text
        case "always":
            guard let text = entry.manifest.always else {
                return fail("missingUsageDescription", "\(sender.name)'s manifest has no always description")
            }
            description = text
        default:
            guard let purpose = request.purpose, let text = entry.manifest.temporaryFull[purpose] else {
                return fail("unknownPurposeKey", "'\(request.purpose ?? "")' is not a temporaryFull purpose key in \(sender.name)'s manifest")
            }
            guard record.status == .whenInUse || record.status == .always else {
                return fail("notAuthorized", "temporary full accuracy needs whenInUse or always first")
            }
            description = text
        }
        if let policy = entry.autoGrant {
            if request.level == "temporaryFull" {
                record.temporaryFull = TemporaryFull(purpose: request.purpose ?? "", expires: now + Self.defaultTemporarySeconds)
            } else {
                record.status = policy.status
                record.accuracy = policy.accuracy
            }
            records[sender.name] = record
            return Outcome(changed: [sender.name])
        }
        if record.pending.contains(where: { $0.level == request.level && $0.purpose == request.purpose }) {
            return Outcome()
        }
        record.pending.append(.init(level: request.level, purpose: request.purpose, description: description, t: now))
        records[sender.name] = record
        return Outcome(changed: [sender.name])
    }

    private mutating func handleSet(_ command: AuthSet, fields: [String: Any], now: Double,
                                    fail: (String, String) -> Outcome) -> Outcome {
        guard let entry = allowList.byName[command.client] else {
            return fail("unknownClient", "'\(command.client)' is not on the allow-list")
        }
        var record = self.record(command.client)
        if entry.restricted && command.status != nil && command.status != .restricted {
            return fail("restricted", "\(command.client) is restricted by administrator policy and cannot be authorized")
        }
        if let status = command.status {
            record.status = status
            if status != .whenInUse && status != .always { record.temporaryFull = nil }
            record.pending.removeAll { $0.level != "temporaryFull" || !(status == .whenInUse || status == .always) }
        }
        if let accuracy = command.accuracy { record.accuracy = accuracy }
        if let purpose = fields["temporaryPurpose"] as? String {
            guard entry.manifest.temporaryFull[purpose] != nil else {
                return fail("unknownPurposeKey", "'\(purpose)' is not a temporaryFull purpose key in \(command.client)'s manifest")
            }
            guard record.status == .whenInUse || record.status == .always else {
                return fail("notAuthorized", "temporary full accuracy needs whenInUse or always first")
            }
            let seconds = (fields["durationSeconds"] as? Double) ?? Self.defaultTemporarySeconds
            guard seconds > 0 && seconds <= 86_400 else { return fail("badCommand", "durationSeconds must be in (0, 86400]") }
            record.temporaryFull = TemporaryFull(purpose: purpose, expires: now + seconds)
            record.pending.removeAll { $0.level == "temporaryFull" }
        }
        if fields["endTemporary"] as? Bool == true { record.temporaryFull = nil }
        records[command.client] = record
        return Outcome(changed: [command.client])
    }

    /// Ends temporary grants whose time is up, and those of clients whose session ended
    /// (`connected` says whether a client still has a subscriber connection). Returns the clients changed.
    public mutating func expire(now: Double, connected: (String) -> Bool) -> [String] {
        var changed: [String] = []
        for (name, record) in records {
            guard let grant = record.temporaryFull else { continue }
            if grant.expires <= now || !connected(name) {
                records[name]?.temporaryFull = nil
                records[name]?.pending.removeAll { $0.level == "temporaryFull" }
                changed.append(name)
            }
        }
        return changed.sorted()
    }

    /// The status message for a client.
    public func status(of client: String) -> AuthStatus { record(client).statusMessage(client: client) }

    /// The pending requests as a JSON value for `auth.pending.<client>`.
    public func pendingFields(of client: String) -> JSONValue {
        .object(["client": .string(client), "requests": .array(record(client).pending.map { request in
            var fields: [String: JSONValue] = ["level": .string(request.level), "description": .string(request.description),
                                               "t": .number(request.t)]
            if let purpose = request.purpose { fields["purpose"] = .string(purpose) }
            return .object(fields)
        })])
    }
}

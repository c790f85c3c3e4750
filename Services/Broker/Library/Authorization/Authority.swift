import Foundation
public import LocusProtocol

/// The authorization owner's logic, without sockets: it answers `auth.cmd` messages,
/// expires temporary grants and says which clients' access changed, so the broker can
/// publish `auth.status.<client>` and re-apply subscriptions.
public struct Authority: Sendable {
    public let allowList: AllowList
    /// Without an allow-list (the local bus of one user), clients and owners are named by
    /// id alone: any valid id can ask and be decided. With one, only its entries can.
    public let namesByID: Bool
    /// The single-user host's policy (`locus-bus --grant-local`): requests from clients
    /// named by id are decided at once up to this level, and it is the status of a client
    /// nobody has decided yet.
    public let localGrant: AuthorizationStatus?
    public private(set) var records: [String: ClientAuthorization]
    /// Requests per client in the current window, to refuse floods without changing state.
    private var requestTimes: [String: [Double]] = [:]
    public static let requestLimit = 5
    public static let requestWindowSeconds = 10.0
    public static let defaultTemporarySeconds = 3600.0

    public init(allowList: AllowList, records: [String: ClientAuthorization] = [:]) {
        self.init(allowList: allowList, namesByID: false, localGrant: nil, records: records)
    }

    /// The authority of a bus without an allow-list: clients are named by id, `localGrant` decides for the person.
    public static func local(localGrant: AuthorizationStatus? = nil, records: [String: ClientAuthorization] = [:]) -> Authority {
        Authority(allowList: AllowList(), namesByID: true, localGrant: localGrant, records: records)
    }

    private init(allowList: AllowList, namesByID: Bool, localGrant: AuthorizationStatus?, records: [String: ClientAuthorization]) {
        self.allowList = allowList
        self.namesByID = namesByID
        self.localGrant = localGrant
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

    public func record(_ client: String) -> ClientAuthorization {
        if let record = records[client] { return record }
        var fresh = ClientAuthorization()
        if namesByID, let localGrant { fresh.status = localGrant }
        return fresh
    }

    /// Whether `client` can be asked for and decided: an allow-list entry, or any valid id on the local bus.
    public func knows(_ client: String) -> Bool {
        allowList.byName[client] != nil || (namesByID && Topic.isValidID(client))
    }

    /// Whether any temporary grant is running (the broker then checks expiry often).
    public var hasTemporaryGrants: Bool { records.values.contains { $0.temporaryFull != nil } }

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
            guard request.client == sender.name || sender.roles.contains(.admin) else {
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
        let client = request.client
        var times = (requestTimes[client] ?? []).filter { now - $0 < Self.requestWindowSeconds }
        guard times.count < Self.requestLimit else {
            return fail("rateLimited", "more than \(Self.requestLimit) requests in \(Int(Self.requestWindowSeconds)) s for \(client); ignored")
        }
        times.append(now)
        requestTimes[client] = times
        guard knows(client) else { return fail("unknownClient", "\(client) is not on the allow-list") }
        var record = self.record(client)
        guard record.status != .restricted else {
            return fail("restricted", "\(client) is restricted by administrator policy")
        }
        let entry = allowList.byName[client]
        let description: String
        if let entry {
            switch entry.manifest.description(for: request.level, purpose: request.purpose) {
            case .success(let text): description = text
            case .failure(let error): return fail(error.code, "\(client)'s manifest: \(error.message)")
            }
        } else {
            // Named by id on the local bus: no manifest, the request says why (or nothing does).
            description = request.purpose ?? "a local client (no usage description)"
        }
        if request.level == "temporaryFull" && !record.status.isAuthorized {
            return fail("notAuthorized", "temporary full accuracy needs whenInUse or always first")
        }
        if let decision = automaticDecision(entry: entry, level: request.level) {
            if request.level == "temporaryFull" {
                record.temporaryFull = TemporaryFull(purpose: request.purpose ?? "", expires: now + Self.defaultTemporarySeconds)
            } else {
                record.status = decision.status
                record.accuracy = decision.accuracy
            }
            records[client] = record
            return Outcome(changed: [client])
        }
        if record.pending.contains(where: { $0.level == request.level && $0.purpose == request.purpose }) {
            return Outcome()
        }
        record.pending.append(.init(level: request.level, purpose: request.purpose, description: description, t: now))
        records[client] = record
        return Outcome(changed: [client])
    }

    /// The policy that decides a request instead of the person: the entry's `autoGrant`, or
    /// on the local bus `localGrant` for levels up to it (always covers whenInUse).
    private func automaticDecision(entry: AllowListEntry?, level: String)
        -> (status: AuthorizationStatus, accuracy: AccuracyAuthorization)? {
        if let entry { return entry.autoGrant }
        guard namesByID, let localGrant else { return nil }
        let covers = localGrant == .always || (localGrant == .whenInUse && level != "always")
        return covers ? (localGrant, .full) : nil
    }

    private mutating func handleSet(_ command: AuthSet, fields: [String: Any], now: Double,
                                    fail: (String, String) -> Outcome) -> Outcome {
        guard knows(command.client) else {
            return fail("unknownClient", "'\(command.client)' is not on the allow-list")
        }
        let entry = allowList.byName[command.client]
        var record = self.record(command.client)
        if entry?.restricted == true && command.status != nil && command.status != .restricted {
            return fail("restricted", "\(command.client) is restricted by administrator policy and cannot be authorized")
        }
        if let status = command.status {
            record.status = status
            if !status.isAuthorized { record.temporaryFull = nil }
            record.pending.removeAll { $0.level != "temporaryFull" || !status.isAuthorized }
        }
        if let accuracy = command.accuracy { record.accuracy = accuracy }
        if let purpose = fields["temporaryPurpose"] as? String {
            guard entry == nil || entry?.manifest.temporaryFull[purpose] != nil else {
                return fail("unknownPurposeKey", "'\(purpose)' is not a temporaryFull purpose key in \(command.client)'s manifest")
            }
            guard record.status.isAuthorized else {
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

import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// The broker as authorization authority: `auth.cmd` decisions (saved before they are
/// announced), `auth.status.<client>` and `auth.pending` for each changed client, and
/// temporary grants that run out (docs/security.md).
extension Broker {
    // MARK: commands

    func handleAuthCommand(_ body: [UInt8], from sender: ClientIdentity, backend: ZMQSocket) {
        let now = Date().timeIntervalSince1970
        count("authCommands")
        let message: Message
        do { message = try MessageCodec.decode(body) } catch {
            publish(.error(ErrorReport(code: error.code.rawValue, message: "auth.cmd from \(sender.name): \(error.message)",
                                       topic: Topic.authCmd)), topic: Topic.error("bus"), on: backend, now: now)
            return
        }
        let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        // A command changes the client it names only: its policy before is all that is needed.
        let named: String?
        switch message.body {
        case .authRequest(let request): named = request.client
        case .authSet(let command): named = command.client
        default: named = nil
        }
        let before = policies(of: named.map { [$0] } ?? [], now: now)
        let earlier = enforcement.authority
        let outcome = enforcement.authority.handle(message, fields: fields, from: sender, now: now)
        // A decision is announced only once it is saved; unsaved, the earlier state stays.
        if !outcome.changed.isEmpty, let fault = enforcement.persist(log: log) {
            enforcement.authority = earlier
            count("authErrors")
            publish(.error(ErrorReport(code: "storage", message: "auth.cmd from \(sender.name) not applied, state not saved: \(fault)",
                                       topic: Topic.authCmd, ref: message.envelope.id)),
                    topic: Topic.error("bus"), on: backend, now: now)
            noteStorage(fault, holding: "refusing authorization changes", backend: backend, now: now)
            return
        }
        for error in outcome.errors {
            count("authErrors")
            log.warn("auth.cmd from \(sender.name) refused: \(error.code): \(error.message)")
            publish(.error(error), topic: Topic.error("bus"), on: backend, now: now)
        }
        statusChanged(outcome.changed, before: before, backend: backend, now: now, saved: true)
    }

    /// Publishes the new status (and pending list) of each changed client, persists, and
    /// schedules a connection reset when granted subscriptions no longer match.
    func statusChanged(_ clients: [String], before: [String: ReceivePolicy], backend: ZMQSocket, now: Double, saved: Bool = false) {
        guard !clients.isEmpty else { return }
        for client in clients {
            enforcement.graceUntil[client] = now + Self.sessionGraceSeconds
            let status = enforcement.authority.status(of: client)
            log.info("authorization of \(client): \(status.status.rawValue), \(status.accuracy.rawValue)"
                     + (status.temporaryFull.map { ", temporary full for \($0.purpose)" } ?? ""))
            publish(.authStatus(status), topic: Topic.authStatus(client), on: backend, now: now)
            publish(.other(type: "auth.pending", fields: enforcement.authority.pendingFields(of: client)),
                    topic: Topic.authPendingPrefix + client, on: backend, now: now)
            if let entry = enforcement.authority.allowList.byName[client] {
                enforcement.accessChanged(client, before: before[client],
                                          after: enforcement.policy(of: entry.identity, now: now))
            }
        }
        // A grant that ends takes effect at once (less access is always safe); its record is
        // saved again on the next change if saving fails now.
        if !saved, let fault = enforcement.persist(log: log) {
            noteStorage(fault, holding: "keeping authorization state in memory", backend: backend, now: now)
        }
    }

    // MARK: temporary grants

    func expireTemporaryGrants(backend: ZMQSocket, now: Double) {
        guard enforcement.authority.hasTemporaryGrants else { return }
        // Only clients with a temporary grant can change here; a fleet's other clients cost nothing.
        let before = policies(of: enforcement.authority.records.filter { $0.value.temporaryFull != nil }.map(\.key), now: now - 0.2)
        let recentReset = now - (enforcement.connections?.lastKick ?? 0) < Self.sessionGraceSeconds
        let changed = enforcement.authority.expire(now: now) { client in
            recentReset || enforcement.isConnected(client) || now < enforcement.graceUntil[client, default: 0]
        }
        statusChanged(changed, before: before, backend: backend, now: now)
    }

    /// The receive policies of the named allow-listed clients, to tell afterwards whose granted subscriptions a change altered.
    private func policies(of names: [String], now: Double) -> [String: ReceivePolicy] {
        guard filtersClients else { return [:] }
        var result: [String: ReceivePolicy] = [:]
        for name in names {
            if let entry = enforcement.authority.allowList.byName[name] { result[name] = enforcement.policy(of: entry.identity, now: now) }
        }
        return result
    }

    /// Time a client may be without a subscriber connection (a reconnect) before its session counts as ended.
    static let sessionGraceSeconds = 1.5
}

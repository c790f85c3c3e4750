import CZeroMQ
import Foundation
import LocusBus
import LocusService
import LocusProtocol
import LocusStore

/// The broker's authorization state while it runs: the authority (decisions), the
/// store (persistence), and with an allow-list who subscribed to what and the tcp
/// connections to reset when a change must reach subscriptions already granted.
/// Owned by the broker thread.
final class Enforcement {
    var authority: Authority
    let settings: BrokerAuthorization
    let store: AuthorizationStore?
    var connections: SubscriberConnections?
    /// Requested prefixes per client with a count per connection, from subscriptions that carry a User-Id.
    private var live: [String: [[UInt8]: Int]] = [:]
    /// Clients that have subscribed since the bus started: a change to their access resets connections.
    private var seen: Set<String> = []
    private var lastUserID: [CChar] = []
    private var lastIdentity: ClientIdentity?
    var resetPending = false
    /// Until when a client counts as connected without a subscription (just decided, or reconnecting).
    var graceUntil: [String: Double] = [:]

    init(settings: BrokerAuthorization, log: ServiceLog) {
        self.settings = settings
        store = settings.stateDirectory.map { AuthorizationStore(directory: $0) }
        var records: [String: ClientAuthorization] = [:]
        if let store {
            do { records = try store.load() } catch { log.error("ignoring authorization state: \(error)") }
        }
        authority = settings.makeAuthority(records: records)
    }

    /// Says at start how clients are named and where their authorization is kept.
    func logStart(_ log: ServiceLog) {
        if let list = settings.allowList {
            log.info("authorization authority: allow-list of \(list.byName.count) client(s)")
        } else {
            log.info("authorization authority: local bus, clients named by id"
                     + (settings.localGrant.map { ", requests decided at once up to \($0.rawValue) (--grant-local)" } ?? ""))
        }
        if let store {
            log.info("authorization state in \(store.path) (\(settings.stateDirectoryOrigin)), \(authority.records.count) client(s) decided")
        } else {
            log.info("authorization state kept in memory only (\(settings.stateDirectoryOrigin))")
        }
    }

    /// The identity behind a ZAP User-Id; NULL connections (no User-Id) are the local identity.
    func identity(userID: UnsafePointer<CChar>?) -> ClientIdentity? {
        guard settings.filtersClients, let userID, userID.pointee != 0 else { return settings.localIdentity }
        if let cached = lastIdentity, strcmp(userID, lastUserID) == 0 { return cached }
        let name = String(cString: userID)
        guard let entry = authority.allowList.byName[name] else { return nil }
        lastUserID = Array(name.utf8CString)
        lastIdentity = entry.identity
        return entry.identity
    }

    func tier(of identity: ClientIdentity, now: Double) -> AccessTier { authority.tier(of: identity, now: now) }

    /// What the client may receive now: everything for services, else by tier, status, owner id and device scope.
    func policy(of identity: ClientIdentity, now: Double) -> ReceivePolicy {
        if identity.isTrusted { return .everything }
        let status = authority.record(identity.name).status
        return .client(name: identity.name, tier: tier(of: identity, now: now), authorized: status == .whenInUse || status == .always,
                       scope: identity.devices, allOwners: identity.roles.contains(.admin))
    }

    // MARK: subscriptions

    func didSubscribe(_ client: String, prefix: [UInt8]) {
        live[client, default: [:]][prefix, default: 0] += 1
        seen.insert(client)
    }

    /// A cancel from the client itself; returns the grants no other live request of the client still needs.
    func didUnsubscribe(_ client: String, prefix: [UInt8], policy: ReceivePolicy) -> [[UInt8]] {
        guard let count = live[client]?[prefix] else { return [] }
        if count > 1 {
            live[client]?[prefix] = count - 1
            return []
        }
        live[client]?[prefix] = nil
        let kept = Set((live[client] ?? [:]).keys.flatMap { policy.grants(for: $0) })
        return policy.grants(for: prefix).filter { !kept.contains($0) }
    }

    /// A cancel libzmq emits for a closed connection carries no User-Id: every client with
    /// that request live loses one count. When several match, all do (temporary grants end
    /// early rather than late).
    func connectionClosed(prefix: [UInt8]) {
        for (client, prefixes) in live where (prefixes[prefix] ?? 0) > 0 {
            live[client]?[prefix] = prefixes[prefix]! > 1 ? prefixes[prefix]! - 1 : nil
        }
    }

    /// Without an allow-list sessions are not followed: a temporary grant lasts its time.
    func isConnected(_ client: String) -> Bool { !settings.filtersClients || !(live[client]?.isEmpty ?? true) }

    /// Notes a change of a client's access; connections are reset when it may hold grants.
    func accessChanged(_ client: String, before: ReceivePolicy?, after: ReceivePolicy) {
        if before != after && seen.contains(client) { resetPending = true }
    }

    func resetConnectionsIfNeeded(log: ServiceLog) {
        guard resetPending, let connections else { return }
        resetPending = false
        live.removeAll()
        do {
            let count = connections.tcpCount
            try connections.kickAll()
            log.info("authorization changed: reset \(count) tcp subscriber connection(s) so they resubscribe under the new state")
        } catch {
            log.warn("could not reset subscriber connections: \(error)")
        }
    }

    /// Saves the records; returns the fault when they could not be saved.
    @discardableResult
    func persist(log: ServiceLog) -> StorageFault? {
        guard let store else { return nil }
        do { try store.save(authority.records) } catch {
            log.error("cannot save authorization state: \(error)")
            return StorageFault.from(error, path: store.path)
        }
        return nil
    }
}

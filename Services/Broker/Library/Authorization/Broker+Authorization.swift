import CZeroMQ
import Foundation
import LocusBus
import LocusService
import LocusProtocol
import LocusStore

/// The broker as authorization owner: endpoint security, per-client subscription grants and
/// publish rules (docs/security.md on CURVE, ZAP and ZMQ_XPUB_MANUAL); `auth.cmd` and the
/// status it changes are in Broker+AuthCommands.swift.
extension Broker {
    // MARK: endpoints

    /// tcp endpoints become CURVE servers when the bus has keys; ipc stays NULL, and says so.
    func bindSecured(_ socket: ZMQSocket, _ endpoint: String) throws {
        let keys = configuration.authorization.serverKeys
        if endpoint.hasPrefix("tcp://"), let keys {
            try socket.setOption(ZMQ_CURVE_SERVER, 1)
            try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keys.secretKey.utf8))
            try socket.setOption(ZMQ_ZAP_DOMAIN, bytes: Array("locus".utf8))
            log.info("\(endpoint): CURVE with ZAP, server key \(keys.publicKey), \(configuration.authorization.allowList?.byName.count ?? 0) client(s) allowed")
        } else {
            // Options apply at bind; NULL endpoints are bound before any CURVE one (see Broker.run),
            // so they never carry the ZAP domain and NULL connections skip ZAP.
            if endpoint.hasPrefix("ipc://") {
                if configuration.authorization.filtersClients {
                    log.warn("\(endpoint): NULL security (no encryption, no keys): every local connection is trusted as '\(configuration.authorization.localClient)'; only the 0700 directory protects it")
                }
            } else {
                log.warn("\(endpoint): NULL security on a network endpoint: anyone who reaches it sees and sends everything; give the bus --curve-secret")
            }
        }
        try socket.bind(endpoint)
    }

    // MARK: subscriptions

    /// Manual-mode subscriptions: each is read with its User-Id and granted, on that
    /// connection only, as the narrower prefixes the client's access allows.
    func serveGrantedSubscriptions(_ backend: ZMQSocket) throws(ZMQError) {
        guard let handle = backend.handle else { return }
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        let now = Date().timeIntervalSince1970
        while true {
            if zmq_msg_recv(&message, handle, ZMQ_DONTWAIT) < 0 {
                let error = ZMQError(operation: "zmq_msg_recv")
                if error.isInterrupted { continue }
                if error.wouldBlock { return }
                throw error
            }
            let size = zmq_msg_size(&message)
            guard size >= 1, let data = zmq_msg_data(&message) else { continue }
            let bytes = UnsafeRawBufferPointer(start: data, count: size)
            let kind = bytes[0]
            let prefix = Array(bytes.dropFirst())
            guard kind == 0 || kind == 1 else { continue }
            let userID = zmq_msg_gets(&message, "User-Id")
            if kind == 0 {
                count("unsubscriptions")
                // A cancel without metadata is libzmq cleaning up a closed connection.
                guard size > 0, userID != nil else {
                    enforcement.connectionClosed(prefix: prefix)
                    continue
                }
                guard let identity = enforcement.identity(userID: userID) else { continue }
                let policy = enforcement.policy(of: identity, now: now)
                for grant in enforcement.didUnsubscribe(identity.name, prefix: prefix, policy: policy) {
                    try backend.setOption(ZMQ_UNSUBSCRIBE, bytes: grant)
                }
                continue
            }
            count("subscriptions")
            guard let identity = enforcement.identity(userID: userID) else {
                count("refusedSubscriptions")
                continue
            }
            let policy = enforcement.policy(of: identity, now: now)
            let grants = policy.grants(for: prefix)
            for grant in grants { try backend.setOption(ZMQ_SUBSCRIBE, bytes: grant) }
            if grants.count != 1 || grants.first != prefix { count("narrowedSubscriptions") }
            enforcement.didSubscribe(identity.name, prefix: prefix)
            for entry in cache.matching(prefix: prefix) where policy.mayReceive(topic: entry.topic) {
                if try !backend.send(entry.topic, more: true, dontWait: true) {
                    dropped += 1
                    continue
                }
                try backend.send(entry.body)
                count("replayed")
            }
        }
    }

    // MARK: publishing

    /// Decides one published message (called by the Forwarder); true forwards it.
    func admit(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, userID: UnsafePointer<CChar>?,
               backend: ZMQSocket) -> Bool {
        guard let sender = enforcement.identity(userID: userID) else {
            refuse(code: "notAuthorized", reason: "a sender not on the allow-list", topic: topic, backend: backend)
            return false
        }
        switch PublishDecision.decide(topic: topic, sender: sender) {
        case .forward:
            if topic.starts(with: Self.healthRoot) { noteHealthSender(topic: topic, sender: sender) }
            if topic.starts(with: Self.regionRoot) { return screenOwnerTopic(topic: topic, body: body, backend: backend) }
            return true
        case let .refuse(code, reason):
            refuse(code: code, reason: "\(sender.name): \(reason)", topic: topic, backend: backend)
            return false
        case .authCommand:
            handleAuthCommand(Array(body), from: sender, backend: backend)
            return false
        case .regionCommand:
            return checkRegionCommand(Array(body), from: sender, backend: backend)
        }
    }

    /// The authority's part of `health.bus`: `authority` tells `locus auth` that this bus answers
    /// `auth.cmd` and how it names clients; `senders` who published each service's health.
    func addAuthorizationHealth(counters values: inout [String: Int], detail: inout [String: String]) {
        values["clientsKnown"] = filtersClients ? enforcement.authority.allowList.byName.count : enforcement.authority.records.count
        if filtersClients { values["connectionResets"] = enforcement.connections?.kicks ?? 0 }
        detail["authority"] = filtersClients ? "allowList" : "local"
        detail["senders"] = filtersClients
            ? healthSenders.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") : "local"
    }

    static let healthRoot = Array(Topic.healthPrefix.utf8)
    static let regionRoot = Array(Topic.regionPrefix.utf8)

    /// Remembers who sent each service's health, so `locus doctor` and the map can say it (health.bus detail `senders`).
    private func noteHealthSender(topic: UnsafeRawBufferPointer, sender: ClientIdentity) {
        let service = String(decoding: topic.dropFirst(Self.healthRoot.count), as: UTF8.self)
        if healthSenders[service] != sender.name { healthSenders[service] = sender.name }
    }

    /// Owner topics (`region.state.<owner>`, `region.event.<owner>`) from any sender: an owner
    /// id that extends an app's name would reach that app (topics match by prefix), so it is
    /// dropped; an event about a device outside the owning app's device scope is dropped too.
    private func screenOwnerTopic(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, backend: ZMQSocket) -> Bool {
        let allowList = enforcement.authority.allowList
        for root in [Topic.regionStatePrefix, Topic.regionEventPrefix] where topic.starts(with: root.utf8) {
            let owner = topic.dropFirst(root.utf8.count)
            if let app = allowList.ownerConflict(owner: owner) {
                refuse(code: "ownerConflict", reason: "owner '\(String(decoding: owner, as: UTF8.self))' extends client '\(app)''s id, "
                       + "so its topics would reach \(app)", topic: topic, backend: backend)
                return false
            }
            guard root == Topic.regionEventPrefix, let entry = allowList.byName[String(decoding: owner, as: UTF8.self)],
                  !entry.roles.contains(.service), let scope = entry.devices else { return true }
            guard case .regionEvent(let event)? = try? MessageCodec.decode(body).body else { return true }
            if scope.covers(device: event.device.utf8) { return true }
            count("scopeFiltered")
            return false
        }
        return true
    }

    /// Counts every refusal and reports at most one per second on `error.bus`, so a flood stays cheap.
    private func refuse(code: String, reason: String, topic: UnsafeRawBufferPointer, backend: ZMQSocket) {
        count("refused")
        let now = Date().timeIntervalSince1970
        guard now - lastRefusalReport >= 1 else { return }
        lastRefusalReport = now
        let topicText = String(decoding: topic, as: UTF8.self)
        log.warn("dropped \(topicText): \(reason)")
        publish(.error(ErrorReport(code: code, message: "dropped: \(reason)", topic: topicText)),
                topic: Topic.error("bus"), on: backend, now: now)
    }

    /// Region commands from apps: an owner may only act for itself, and only `always` may add regions.
    private func checkRegionCommand(_ body: [UInt8], from sender: ClientIdentity, backend: ZMQSocket) -> Bool {
        guard let message = try? MessageCodec.decode(body) else { return true }
        let now = Date().timeIntervalSince1970
        let owner: String
        let regionId: String
        var needsAlways = false
        switch message.body {
        case .regionAdd(let add): (owner, regionId, needsAlways) = (add.owner, add.region.id, true)
        case .regionRemove(let remove): (owner, regionId) = (remove.owner, remove.regionId)
        case .regionListRequest(let list): (owner, regionId) = (list.owner, "")
        case .regionRequestState(let request): (owner, regionId) = (request.owner, request.regionId ?? "")
        default: return true
        }
        var problem: String?
        var conflict = false
        if let app = enforcement.authority.allowList.ownerConflict(owner: owner.utf8) {
            problem = "owner '\(owner)' extends client '\(app)''s id, so its region topics would reach \(app); choose another owner id"
            conflict = true
        } else if sender.isTrusted {
            return true
        } else if owner != sender.name {
            problem = "\(sender.name) may not act for owner '\(owner)'"
        } else if needsAlways && !enforcement.authority.record(sender.name).status.allowsRegionMonitoring {
            problem = "monitoring regions needs always authorization; \(sender.name) is \(enforcement.authority.record(sender.name).status.rawValue); "
                + "grant it with: \(AuthStatus.grantCommand(client: sender.name, level: "always"))"
        }
        guard let problem else { return true }
        count("refused")
        log.warn("region.cmd refused: \(problem)")
        // The owner's own topic only when the sender is that owner (and may read it): never onto
        // another owner's topic. error.bus carries it too, with the command's id.
        if owner == sender.name && !conflict {
            let failure = RegionFailed(owner: owner, regionId: regionId, code: .notAuthorized, message: problem, re: message.envelope.id)
            publish(.regionFailed(failure), topic: Topic.regionState(owner), on: backend, now: now)
        }
        publish(.error(ErrorReport(code: conflict ? "ownerConflict" : "notAuthorized", message: problem,
                                   topic: Topic.regionCmd, ref: message.envelope.id)),
                topic: Topic.error("bus"), on: backend, now: now)
        return false
    }
}

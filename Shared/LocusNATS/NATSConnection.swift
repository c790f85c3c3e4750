import CNATS
import Foundation

/// One connection to a NATS cluster with its JetStream context (cnats does the socket work
/// on threads of its own; every call here is safe from any thread). It reconnects by itself
/// for ever, keeps what is published meanwhile in its reconnect buffer, and counts what
/// happened to it for `health.<service>`.
public final class NATSConnection: @unchecked Sendable {
    let connection: OpaquePointer
    let jetStream: OpaquePointer
    public let endpoint: NATSEndpoint
    private let events = NATSConnectionEvents()
    /// JetStream publishing, confirmed and kept in order (`NATSDurablePublisher`).
    let durable = NATSDurablePublisher()

    /// Connects, or throws a clear error (refused credentials, no server reachable within
    /// `timeoutSeconds`). The caller retries with back-off.
    public init(endpoint: NATSEndpoint, name: String, credentials: NATSCredentials?, timeoutSeconds: Double = 2) throws(NATSError) {
        self.endpoint = endpoint
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "cannot create NATS options")
        defer { natsOptions_Destroy(options) }
        try withCStrings(endpoint.servers) { servers throws(NATSError) in
            try check(natsOptions_SetServers(options, servers, Int32(endpoint.servers.count)), "bad NATS servers \(endpoint)")
        }
        natsOptions_SetName(options, name)
        natsOptions_SetTimeout(options, Int64(timeoutSeconds * 1000))
        natsOptions_SetAllowReconnect(options, true)
        natsOptions_SetMaxReconnect(options, -1)
        natsOptions_SetReconnectWait(options, 250)
        natsOptions_SetReconnectBufSize(options, 256 * 1024 * 1024)
        natsOptions_SetMaxPendingMsgs(options, 1_000_000)
        switch credentials {
        case let .userPassword(user, password)?:
            natsOptions_SetUserInfo(options, user, password)
            natsOptions_SetCustomInboxPrefix(options, NATSCredentials.inboxPrefix(user: user))
        case let .credentialsFile(path)?: natsOptions_SetUserCredentialsFromFiles(options, path, nil)
        case nil: break
        }
        // cnats may call these from its own threads even while the connection is being
        // destroyed, so the callbacks hold their own reference (a few bytes per connection).
        let context = Unmanaged.passRetained(events).toOpaque()
        natsOptions_SetDisconnectedCB(options, { _, closure in
            guard let closure else { return }
            Unmanaged<NATSConnectionEvents>.fromOpaque(closure).takeUnretainedValue().count(\.disconnections)
        }, context)
        natsOptions_SetReconnectedCB(options, { _, closure in
            guard let closure else { return }
            Unmanaged<NATSConnectionEvents>.fromOpaque(closure).takeUnretainedValue().count(\.reconnections)
        }, context)
        natsOptions_SetErrorHandler(options, { _, _, status, closure in
            guard let closure else { return }
            Unmanaged<NATSConnectionEvents>.fromOpaque(closure).takeUnretainedValue().asyncError(status)
        }, context)
        var connection: OpaquePointer?
        let status = natsConnection_Connect(&connection, options)
        guard status == NATS_OK, let connection else {
            let hint = status == NATS_CONNECTION_AUTH_FAILED ? " — the servers refused the credentials (--nats-credentials)" : ""
            throw NATSError("cannot connect to NATS at \(endpoint): \(Self.text(status))\(hint)")
        }
        self.connection = connection

        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = 5000
        jsOptions.PublishAsync.MaxPending = 65_536
        jsOptions.PublishAsync.StallWait = 1000
        jsOptions.PublishAsync.AckHandler = NATSDurablePublisher.handler
        // Retained for the same reason as the connection callbacks' context.
        jsOptions.PublishAsync.AckHandlerClosure = Unmanaged.passRetained(durable).toOpaque()
        var jetStream: OpaquePointer?
        let jsStatus = natsConnection_JetStream(&jetStream, connection, &jsOptions)
        guard jsStatus == NATS_OK, let jetStream else {
            natsConnection_Destroy(connection)
            throw NATSError("cannot open JetStream on \(endpoint): \(Self.text(jsStatus))")
        }
        self.jetStream = jetStream
        durable.jetStream = jetStream
    }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Destroy(connection)
    }

    /// Whether the connection is up now.
    public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }

    /// The servers this client knows (seeds and those the cluster told it about).
    public var knownServers: [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count: Int32 = 0
        guard natsConnection_GetServers(connection, &list, &count) == NATS_OK, let list else { return [] }
        defer {
            for index in 0..<Int(count) { free(list[index]) }
            free(list)
        }
        return (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
    }

    /// Publishes plainly (not acknowledged); false when the reconnect buffer is full.
    @discardableResult
    public func publish(subject: String, body: [UInt8]) -> Bool {
        body.withUnsafeBytes { natsConnection_Publish(connection, subject, $0.baseAddress, Int32($0.count)) } == NATS_OK
    }

    /// Publishes to JetStream without waiting; `id` goes in `Nats-Msg-Id` so the stream drops
    /// a repeat. `confirmPublishes` tells when it is stored.
    public func publishDurable(subject: String, body: [UInt8], id: String, stream: String) throws(NATSError) {
        var message: OpaquePointer?
        let created = body.withUnsafeBytes { natsMsg_Create(&message, subject, nil, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count)) }
        try check(created, "cannot build a NATS message")
        guard let message else { throw NATSError("cannot build a NATS message") }
        natsMsgHeader_Set(message, "Nats-Msg-Id", id)
        durable.publish(message, stream: stream)
    }

    /// Waits until every JetStream publish so far is stored, sending again, in their first
    /// order, those the servers refused or lost. False when some are still unconfirmed after
    /// `timeoutSeconds` (they stay, and the next call continues).
    public func confirmPublishes(timeoutSeconds: Double) -> Bool {
        durable.confirm(timeoutSeconds: timeoutSeconds)
    }

    /// Flushes plain publishes to the server (a round trip); false on time-out.
    public func flush(timeoutSeconds: Double) -> Bool {
        natsConnection_FlushTimeout(connection, Int64(timeoutSeconds * 1000)) == NATS_OK
    }

    public var counters: [String: Int] {
        var values = events.snapshot()
        let report = durable.report
        values["resent"] = report.resent
        values["publishReordered"] = report.reordered
        return values
    }

    /// The servers' words for the last refused JetStream publish, for the log.
    public var lastPublishError: String { durable.report.lastError }

    /// The client library's words for a status, with its last error detail.
    static func text(_ status: natsStatus) -> String {
        var last = NATS_OK
        let detail = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        let name = String(cString: natsStatus_GetText(status))
        return detail.isEmpty || detail == name ? name : "\(name) (\(detail))"
    }
}

func check(_ status: natsStatus, _ what: @autoclosure () -> String) throws(NATSError) {
    guard status == NATS_OK else { throw NATSError("\(what()): \(NATSConnection.text(status))") }
}

/// Runs `body` with the strings as a C array of `const char *`.
func withCStrings<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) throws(NATSError) -> Result) throws(NATSError) -> Result {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers = copies.map { UnsafePointer<CChar>($0) }
    return try pointers.withUnsafeMutableBufferPointer { buffer throws(NATSError) in try body(buffer.baseAddress!) }
}
